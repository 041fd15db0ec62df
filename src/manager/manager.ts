/**
 * The manager: one client, one informer cache, one event recorder and one metrics registry
 * shared by every controller of a process; health and metrics endpoints; optional leader
 * election; graceful shutdown.
 */
import type { Logger } from "pino";
import type { KubeObject } from "../api/index.ts";
import { InformerCache, type InformerCacheOptions } from "../cache/index.ts";
import { Client, type ClientOptions, type LoadConfigOptions } from "../client/index.ts";
import { type Clock, systemClock } from "../clock/index.ts";
import {
  buildController,
  type Controller,
  type ControllerDeps,
  type ControllerHost,
  type ControllerSpec,
  type HostedController,
} from "../controller/index.ts";
import { type ElectionTimings, LeaderElector, LeadershipLostError } from "../election/index.ts";
import { EventRecorder } from "../events/index.ts";
import type { PermissionRequest } from "../generate/index.ts";
import {
  logDivergence,
  logInformerFailure,
  ownPod,
  withPodEvents,
  withShardFallbackWarning,
} from "./cache-reports.ts";
import { DeclaredKinds } from "./declared-kinds.ts";
import {
  type Listen,
  type MetricsOptions,
  resolveEndpoints,
  runningInCluster,
  startEndpoints,
} from "./endpoints.ts";
import { DuplicateControllerError } from "./errors.ts";
import { controllersAlive, informersAlive, informersSynced } from "./health.ts";
import { createLogger } from "./logger.ts";
import { ManagerMetrics } from "./metrics.ts";
import type { Check } from "./server.ts";
import { handleShutdownSignals } from "./signals.ts";

/** Leader election settings (client-go semantics; controller-runtime's 15/10/2 s defaults). */
export interface LeaderElectionOptions extends Partial<ElectionTimings> {
  /** Lease name. Default: the manager's name. */
  name?: string;
  /** Lease namespace. Default: the client's default namespace (the pod's). */
  namespace?: string;
  /** Candidate identity. Default: `$POD_NAME_$POD_UID` when set, else host name and a random suffix. */
  identity?: string;
  /** Give the Lease up on shutdown so a successor takes over at once. Default true. */
  releaseOnCancel?: boolean;
}

/** Options of {@link Manager.create}. */
export interface ManagerOptions {
  /** The operator's name: field manager of its writes, reporting controller of its events, default Lease name. */
  name: string;
  /** A ready client; default: one loaded from `config` (in-cluster or kubeconfig). */
  client?: Client;
  config?: LoadConfigOptions;
  /** Client tuning (qps, burst, timeouts) when the manager creates the client. */
  clientOptions?: ClientOptions;
  /** Watch and cache only this namespace (a namespace-scoped operator). */
  namespace?: string;
  /**
   * What the operator uses beyond its controllers' `for()`, `owns()` and `watches()`: its
   * `permissions`, as `defineOperator` declares them (`runOperator` passes them). A reconcile's
   * client call or cached read of a kind declared in neither is warned about, once per kind.
   */
  permissions?: readonly Pick<PermissionRequest, "type">[];
  /** Cache tuning: per-kind scopes, transforms, watch timing, periodic relist (per cache and per kind). */
  cache?: Pick<InformerCacheOptions, "byKind" | "informer" | "relistByKind">;
  /**
   * `/metrics` endpoint; `false` disables it. Default, as kubebuilder's scaffold: in a cluster
   * (`KUBERNETES_SERVICE_HOST` set) HTTPS on 0.0.0.0:8443 for authenticated and authorized
   * callers only; outside, plain HTTP on 127.0.0.1:8080. See {@link MetricsOptions}.
   */
  metrics?: MetricsOptions | false;
  /**
   * `/healthz` and `/readyz`, always plain HTTP (the kubelet probes them); `false` disables them.
   * Default port 8081, on 0.0.0.0 in a cluster and 127.0.0.1 outside.
   */
  health?: Listen | false;
  /**
   * Leader election; off unless given. Caches start and sync before leadership is won, so a
   * follower that takes over reconciles at once; controllers run only while leading. When
   * leadership is lost, writes through {@link Manager.client} are refused from that moment
   * (`WriteFencedError`), every in-flight reconcile's `ctx.signal` aborts, and `start` rejects
   * with `LeadershipLostError`.
   */
  leaderElection?: LeaderElectionOptions | false;
  /**
   * How long in-flight reconciles may run once shutdown begins; then their `ctx.signal` aborts
   * and the manager stops without waiting for them. The default of every controller's own
   * `gracefulShutdownMs`. Default 30 s.
   */
  gracefulShutdownMs?: number;
  /**
   * Logger. Default: pino named after the operator, at `$LOG_LEVEL` (default `info`), readable
   * lines when stdout is a terminal, JSON otherwise.
   */
  logger?: Logger;
  clock?: Clock;
}

/** Runs controllers. Build controllers with `controller(manager)` before calling {@link Manager.start}. */
export class Manager implements ControllerHost {
  readonly name: string;
  /**
   * The client controllers, the cache and the event recorder use. With leader election, a view
   * fenced when leadership is lost: no write goes through it from that moment.
   */
  readonly client: Client;
  readonly cache: InformerCache;
  readonly logger: Logger;
  readonly recorder: EventRecorder;
  readonly metrics: ManagerMetrics;
  readonly #options: ManagerOptions;
  readonly #clock: Clock;
  readonly #controllers: HostedController[] = [];
  readonly #declared: DeclaredKinds;
  /** The client reconciles get: {@link Manager.client}, checking each call's kind was declared. */
  readonly #controllerClient: Client;
  readonly #elector: LeaderElector | undefined;
  /** Aborted when leadership is lost: the fence of {@link Manager.client}. */
  readonly #fence = new AbortController();
  #synced: Promise<boolean> = Promise.resolve(false);
  #ready = false;
  #cachesRunning = false;
  #onLeadershipLost: (err: LeadershipLostError) => void = () => {};
  #ports: { metrics?: number; health?: number } = {};

  private constructor(options: ManagerOptions, client: Client, logger: Logger, metrics: ManagerMetrics) {
    this.name = options.name;
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.client = options.leaderElection ? client.fenced(this.#fence.signal) : client;
    this.logger = logger;
    this.metrics = metrics;
    this.#declared = new DeclaredKinds(
      logger,
      options.permissions?.map((p) => p.type),
    );
    this.#controllerClient = this.client.observed((type, verb) =>
      this.#declared.check(type, `client.${verb}`),
    );
    this.cache = new InformerCache(this.client, {
      ...options.cache,
      namespace: options.namespace,
      clock: this.#clock,
      metrics: (type) =>
        withShardFallbackWarning(
          withPodEvents(metrics.informer(type), type, ownPod(process.env), () => this.recorder),
          type,
          logger,
        ),
      onError: (err, context) => logInformerFailure(logger, err, context),
      onDiverged: (type, found) => logDivergence(logger, type, found),
      onLazyInformer: (type, scope) =>
        this.#declared.has(type)
          ? logger.warn(
              { kind: type.kind, namespace: scope.namespace ?? "(all)" },
              "a cached read started an informer nobody declared; declare it with watches()/owns() or expect this kind to be cached",
            )
          : this.#declared.check(type, "cache.reader"),
    });
    this.recorder = new EventRecorder(this.client, {
      reportingController: options.name,
      reportingInstance: process.env.POD_NAME ?? undefined,
      logger,
      clock: this.#clock,
    });
    // The elector writes the Lease through the unfenced client: it may still release a Lease it holds.
    this.#elector = this.#makeElector(client);
  }

  /** Creates a manager, loading the client configuration when no client is given. */
  static async create(options: ManagerOptions): Promise<Manager> {
    const logger = options.logger ?? createLogger(options.name);
    const metrics = new ManagerMetrics(options.clock ?? systemClock);
    const client =
      options.client ??
      (await Client.load(options.config, {
        fieldManager: options.name,
        ...options.clientOptions,
        metrics: metrics.client("apiserver"),
        onWarning: (warning) => logger.warn({ warning }, "apiserver warning"),
      }));
    return new Manager(options, client, logger, metrics);
  }

  /** Ports the endpoints listen on, once started (useful with `port: 0`). */
  get ports(): { metrics?: number; health?: number } {
    return this.#ports;
  }

  /** True once the caches have synced (a follower's too: it stands by with warm caches). */
  get ready(): boolean {
    return this.#ready;
  }

  /** True while this manager holds the leader Lease (always true without leader election). */
  isLeader(): boolean {
    return this.#elector?.isLeader() ?? true;
  }

  /** Controllers registered so far. */
  get controllers(): readonly HostedController[] {
    return this.#controllers;
  }

  /**
   * Builds the controller `spec` declares on the shared informers and runs it with the manager.
   * `controller(manager)...reconcile(fn)` calls this. Throws {@link DuplicateControllerError}
   * when a controller of that name is already registered.
   */
  addController<T extends KubeObject>(spec: ControllerSpec<T>): Controller<T> {
    const { name } = spec.declaration;
    if (this.#controllers.some((c) => c.name === name)) throw new DuplicateControllerError(name);
    const options = { gracefulShutdownMs: this.#options.gracefulShutdownMs, ...spec.options };
    const built = buildController({ ...spec, options }, this.#controllerDeps(name));
    this.#declared.addController(spec.declaration);
    this.#controllers.push(built);
    this.metrics.trackQueue(name, built.queue);
    return built;
  }

  #controllerDeps(name: string): ControllerDeps {
    return {
      client: this.#controllerClient,
      cache: this.cache,
      logger: this.logger,
      recorder: this.recorder,
      metrics: this.metrics.controller(name),
      clock: this.#clock,
    };
  }

  /**
   * Runs until `signal` aborts: serves endpoints, starts the caches and waits for them to sync,
   * then (with leader election, once leading) runs every controller. Shuts down gracefully: stops
   * taking work, lets reconciles finish for up to `gracefulShutdownMs` (then aborts them), closes
   * watches, flushes events, releases the Lease. Rejects with the caches' `CacheSyncTimeoutError`
   * when they do not sync, and with `LeadershipLostError` when leadership is lost, so that the
   * process exits (and restarts clean).
   */
  async start(signal: AbortSignal): Promise<void> {
    const servers = await this.#serve();
    this.logger.info(
      { controllers: this.#controllers.map((c) => c.name), ...this.#ports },
      "manager starting",
    );
    const caches = new AbortController();
    // As controller-runtime, caches start whether or not this replica leads ("warm" followers):
    // a follower that takes over reconciles at once instead of listing everything first.
    this.cache.start(caches.signal);
    this.#cachesRunning = true;
    try {
      this.#synced = this.#syncCaches(signal);
      if (this.#elector) await this.#campaign(this.#elector, signal);
      else if (await this.#synced) await this.#runControllers(signal);
    } finally {
      this.#cachesRunning = false;
      caches.abort();
      await this.recorder.close(AbortSignal.timeout(5000)).catch(() => {});
      for (const server of servers) server.close();
      this.logger.info("manager stopped");
    }
  }

  /** Resolves true once every informer has synced, false when `signal` aborts first; rejects on a sync timeout. */
  #syncCaches(signal: AbortSignal): Promise<boolean> {
    return this.cache.waitForSync(signal).then(
      () => {
        this.#ready = true;
        this.logger.info("caches synced");
        return true;
      },
      (err: unknown) => {
        if (signal.aborted) return false;
        throw err;
      },
    );
  }

  /**
   * Campaigns for the Lease until `signal` aborts, running the controllers while leading. As
   * controller-runtime, a manager that loses leadership does not campaign again: the fence is up
   * and its reconciles are aborted; it rejects with the {@link LeadershipLostError}, and the process
   * exits. A sync timeout ends the campaign too.
   */
  async #campaign(elector: LeaderElector, signal: AbortSignal): Promise<void> {
    const election = new AbortController();
    let failure: unknown;
    const end = (reason: unknown) => {
      failure ??= reason;
      election.abort();
    };
    const stop = () => election.abort();
    signal.addEventListener("abort", stop, { once: true });
    this.#synced.catch(end);
    this.#onLeadershipLost = (err) => {
      this.#fenceOff(err);
      end(err);
    };
    try {
      await elector.run(election.signal);
    } finally {
      signal.removeEventListener("abort", stop);
    }
    if (failure !== undefined) throw failure;
  }

  /** While leading: the controllers, once the caches (started before leadership) have synced. */
  async #lead(leading: AbortSignal): Promise<void> {
    this.logger.info("became leader");
    const synced = await Promise.race([this.#synced.catch(() => false), untilAborted(leading)]);
    if (synced === true && !leading.aborted) await this.#runControllers(leading);
  }

  async #runControllers(signal: AbortSignal): Promise<void> {
    this.logger.info("controllers running");
    await Promise.all(this.#controllers.map((c) => c.run(signal)));
  }

  /**
   * Leadership is lost: from this moment no write goes through {@link Manager.client}, and every
   * reconcile in flight is aborted, with no grace period (controller-runtime drops it to zero).
   * Reconcilers that ignore their signal may go on running, but nothing they write is sent.
   */
  #fenceOff(err: LeadershipLostError): void {
    this.#fence.abort(err);
    for (const controller of this.#controllers) controller.abort(err);
    this.logger.error({ err }, "leadership lost: writes fenced, reconciles aborted; stopping");
  }

  #makeElector(client: Client): LeaderElector | undefined {
    const election = this.#options.leaderElection;
    if (!election) return undefined;
    const podIdentity =
      process.env.POD_NAME && process.env.POD_UID
        ? `${process.env.POD_NAME}_${process.env.POD_UID}`
        : undefined;
    let leading: AbortSignal | undefined;
    return new LeaderElector({
      ...election,
      client,
      name: election.name ?? this.name,
      identity: election.identity ?? podIdentity,
      clock: this.#clock,
      metrics: {
        masterStatus: (name, value) => this.metrics.leader.set({ name }, value),
        leaderTransition: () => {},
      },
      onStartedLeading: (signal) => {
        leading = signal;
        return this.#lead(signal);
      },
      onStoppedLeading: () => {
        this.logger.warn("stopped leading");
        // Lost (a failed renew, another holder) rather than given up on shutdown.
        if (leading?.reason instanceof LeadershipLostError) this.#onLeadershipLost(leading.reason);
      },
      onNewLeader: (identity) => this.logger.info({ leader: identity }, "new leader observed"),
      onError: (err, phase) => this.logger.warn({ err, phase }, "leader election"),
    });
  }

  async #serve() {
    const { servers, ports } = await startEndpoints(resolveEndpoints(this.#options, runningInCluster()), {
      name: this.name,
      registry: this.metrics.registry,
      checks: this.#checks(),
      client: this.client,
      clock: this.#clock,
      logger: this.logger,
    });
    this.#ports = ports;
    return servers;
  }

  #checks(): { healthz: Record<string, Check>; readyz: Record<string, Check> } {
    const source = {
      cache: this.cache,
      controllers: this.#controllers,
      cachesRunning: () => this.#cachesRunning,
    };
    return {
      healthz: { ping: () => true, informers: informersAlive(source), controllers: controllersAlive(source) },
      readyz: { "informers-synced": informersSynced(source) },
    };
  }
}

/**
 * Logs a failure an informer reports (it retries with backoff). A kind the server does not serve
 * is one line per attempt, its message naming the cause and the fix: its stack says nothing more.
 */
/** Resolves (with undefined) when `signal` aborts. */
function untilAborted(signal: AbortSignal): Promise<undefined> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(undefined);
    else signal.addEventListener("abort", () => resolve(undefined), { once: true });
  });
}

/**
 * Starts `manager` and stops it gracefully on SIGTERM or SIGINT; a second signal exits the process
 * at once with code 130. Sets a non-zero exit code when it fails. When leadership is lost it exits the process at once with code 1, as the `main` that
 * kubebuilder scaffolds for controller-runtime does (`os.Exit(1)`): a reconcile that ignores its
 * aborted signal must not keep alive a process that may no longer write, and a fresh process
 * campaigns again with fresh caches.
 */
export async function runManager(manager: Manager): Promise<void> {
  const controller = new AbortController();
  const unhandle = handleShutdownSignals(manager.logger, controller);
  try {
    await manager.start(controller.signal);
  } catch (err) {
    manager.logger.error({ err }, "manager failed");
    process.exitCode = 1;
    if (err instanceof LeadershipLostError) process.exit(1);
  } finally {
    unhandle();
  }
}
