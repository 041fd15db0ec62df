/**
 * The manager: one client, one informer cache, one event recorder and one metrics registry
 * shared by every controller of a process; health and metrics endpoints; optional leader
 * election; graceful shutdown.
 */
import pino, { type Logger } from "pino";
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
import {
  type Listen,
  type MetricsOptions,
  resolveEndpoints,
  runningInCluster,
  startEndpoints,
} from "./endpoints.ts";
import { DuplicateControllerError } from "./errors.ts";
import { ManagerMetrics } from "./metrics.ts";
import type { Check } from "./server.ts";

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
  /** Leader election; off unless given. */
  leaderElection?: LeaderElectionOptions | false;
  /**
   * How long in-flight reconciles may run once shutdown begins; then their `ctx.signal` aborts
   * and the manager stops without waiting for them. The default of every controller's own
   * `gracefulShutdownMs`. Default 30 s.
   */
  gracefulShutdownMs?: number;
  logger?: Logger;
  clock?: Clock;
}

/** Runs controllers. Build controllers with `controller(manager)` before calling {@link Manager.start}. */
export class Manager implements ControllerHost {
  readonly name: string;
  readonly client: Client;
  readonly cache: InformerCache;
  readonly logger: Logger;
  readonly recorder: EventRecorder;
  readonly metrics: ManagerMetrics;
  readonly #options: ManagerOptions;
  readonly #clock: Clock;
  readonly #controllers: HostedController[] = [];
  readonly #elector: LeaderElector | undefined;
  #ready = false;
  #onLeadershipLost: (err: LeadershipLostError) => void = () => {};
  #ports: { metrics?: number; health?: number } = {};

  private constructor(options: ManagerOptions, client: Client, logger: Logger, metrics: ManagerMetrics) {
    this.name = options.name;
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.client = client;
    this.logger = logger;
    this.metrics = metrics;
    this.cache = new InformerCache(client, {
      ...options.cache,
      namespace: options.namespace,
      clock: this.#clock,
      metrics: (type) => metrics.informer(type),
      onError: (err, context) => logger.warn({ err }, context),
      onLazyInformer: (type, scope) =>
        logger.warn(
          { kind: type.kind, namespace: scope.namespace ?? "(all)" },
          "a cached read started an informer nobody declared; declare it with watches()/owns() or expect this kind to be cached",
        ),
    });
    this.recorder = new EventRecorder(client, {
      reportingController: options.name,
      reportingInstance: process.env.POD_NAME ?? undefined,
      logger,
      clock: this.#clock,
    });
    this.#elector = this.#makeElector();
  }

  /** Creates a manager, loading the client configuration when no client is given. */
  static async create(options: ManagerOptions): Promise<Manager> {
    const logger = options.logger ?? pino({ name: options.name, level: process.env.LOG_LEVEL ?? "info" });
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

  /** True once caches have synced and controllers run (or while standing by for leadership). */
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
    this.#controllers.push(built);
    this.metrics.trackQueue(name, built.queue);
    return built;
  }

  #controllerDeps(name: string): ControllerDeps {
    return {
      client: this.client,
      cache: this.cache,
      logger: this.logger,
      recorder: this.recorder,
      metrics: this.metrics.controller(name),
      clock: this.#clock,
    };
  }

  /**
   * Runs until `signal` aborts: serves endpoints, (with leader election, once leading) starts the
   * caches, waits for them to sync, then runs every controller. Shuts down gracefully: stops
   * taking work, lets reconciles finish for up to `gracefulShutdownMs` (then aborts them), closes
   * watches, flushes events, releases the Lease.
   * Rejects with `LeadershipLostError` when leadership is lost, so the process can exit.
   */
  async start(signal: AbortSignal): Promise<void> {
    const servers = await this.#serve();
    this.logger.info(
      { controllers: this.#controllers.map((c) => c.name), ...this.#ports },
      "manager starting",
    );
    let lost: LeadershipLostError | undefined;
    try {
      if (this.#elector) {
        this.#ready = true;
        // Like controller-runtime, a manager that loses leadership stops instead of competing
        // again with caches it already tore down; the process exits and restarts clean.
        const election = new AbortController();
        const stopElection = () => election.abort();
        signal.addEventListener("abort", stopElection, { once: true });
        this.#onLeadershipLost = (err) => {
          if (signal.aborted) return;
          lost = err;
          election.abort();
        };
        await this.#elector.run(election.signal);
        signal.removeEventListener("abort", stopElection);
      } else {
        await this.#runControllers(signal);
      }
    } finally {
      await this.recorder.close(AbortSignal.timeout(5000)).catch(() => {});
      for (const server of servers) server.close();
      this.logger.info("manager stopped");
    }
    if (lost) throw lost;
  }

  async #runControllers(signal: AbortSignal): Promise<void> {
    const stopCaches = new AbortController();
    const stop = () => stopCaches.abort();
    this.cache.start(stopCaches.signal);
    try {
      // waitForSync rejects on abort (then nothing starts) and on a sync timeout (which fails the start).
      await this.cache.waitForSync(signal).catch((err: unknown) => {
        if (!signal.aborted) throw err;
      });
      if (signal.aborted) return;
      this.#ready = true;
      this.logger.info("caches synced; controllers running");
      await Promise.all(this.#controllers.map((c) => c.run(signal)));
    } finally {
      stop();
    }
  }

  #makeElector(): LeaderElector | undefined {
    const election = this.#options.leaderElection;
    if (!election) return undefined;
    const podIdentity =
      process.env.POD_NAME && process.env.POD_UID
        ? `${process.env.POD_NAME}_${process.env.POD_UID}`
        : undefined;
    return new LeaderElector({
      ...election,
      client: this.client,
      name: election.name ?? this.name,
      identity: election.identity ?? podIdentity,
      clock: this.#clock,
      metrics: {
        masterStatus: (name, value) => this.metrics.leader.set({ name }, value),
        leaderTransition: () => {},
      },
      onStartedLeading: (leading) => {
        this.logger.info("became leader");
        return this.#runControllers(leading);
      },
      onStoppedLeading: () => {
        this.logger.warn("stopped leading");
        this.#onLeadershipLost(
          new LeadershipLostError(election.name ?? this.name, "this manager stopped leading"),
        );
      },
      onNewLeader: (identity) => this.logger.info({ leader: identity }, "new leader observed"),
      onError: (err, phase) => this.logger.warn({ err, phase }, "leader election"),
    });
  }

  async #serve() {
    const { servers, ports } = await startEndpoints(resolveEndpoints(this.#options, runningInCluster()), {
      name: this.name,
      registry: this.metrics.registry,
      checks: {
        healthz: { ping: () => true },
        readyz: { "informers-synced": (() => this.#ready) as Check },
      },
      client: this.client,
      clock: this.#clock,
      logger: this.logger,
    });
    this.#ports = ports;
    return servers;
  }
}

/**
 * Starts `manager` and stops it gracefully on SIGTERM or SIGINT; sets a non-zero exit code when
 * it fails or loses leadership.
 */
export async function runManager(manager: Manager): Promise<void> {
  const controller = new AbortController();
  const stop = (sig: NodeJS.Signals) => {
    manager.logger.info({ signal: sig }, "shutting down");
    controller.abort();
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  try {
    await manager.start(controller.signal);
  } catch (err) {
    manager.logger.error({ err }, "manager failed");
    process.exitCode = 1;
  } finally {
    process.off("SIGTERM", stop);
    process.off("SIGINT", stop);
  }
}
