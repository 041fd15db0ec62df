/**
 * The manager: one client, one informer cache, one event recorder and one metrics registry
 * shared by every controller of a process; health and metrics endpoints; optional leader
 * election; graceful shutdown.
 */
import type { Logger } from "pino";
import type { KubeObject, ResourceType } from "../api/index.ts";
import { type Informer, InformerCache, type InformerCacheOptions } from "../cache/index.ts";
import { Client, type ClientOptions, type LoadConfigOptions } from "../client/index.ts";
import { type Clock, systemClock, untilAborted } from "../clock/index.ts";
import {
  buildController,
  type Controller,
  type ControllerDeclaration,
  type ControllerDeps,
  type ControllerHost,
  type ControllerSpec,
  type HostedController,
  type PermissionRequest,
  recordDeclarations,
} from "../controller/index.ts";
import {
  defaultElectionTimings,
  type ElectionTimings,
  LeaderElector,
  LeadershipLostError,
  leaseName,
} from "../election/index.ts";
import { EventRecorder, type EventRecorderOptions } from "../events/index.ts";
import { type HeldShard, ShardCoordinator, type ShardKey } from "../sharding/index.ts";
import type { Webhook } from "../webhook/index.ts";
import {
  logDivergence,
  logInformerFailure,
  ownPod,
  shardFallbackWarnings,
  withPodEvents,
} from "./cache-reports.ts";
import { DeclaredKinds } from "./declared-kinds.ts";
import {
  type Listen,
  type MetricsOptions,
  resolveEndpoints,
  runningInCluster,
  startEndpoints,
} from "./endpoints.ts";
import { DuplicateControllerError, DuplicateRunnableError, ShardingSetupError } from "./errors.ts";
import { controllersAlive, informersAlive, informersSynced } from "./health.ts";
import { type LeasePhase, reportLeaseError } from "./lease-errors.ts";
import { LIVE_PATH, type LiveSource, leadershipOf, liveState } from "./live.ts";
import { createLogger } from "./logger.ts";
import { WatchMerger } from "./merged.ts";
import { ManagerMetrics } from "./metrics.ts";
import { podIdentity, podIn } from "./pod.ts";
import { drained, keepRunning, type Runnable } from "./runnable.ts";
import type { Check } from "./server.ts";
import { ShardCache } from "./shard-cache.ts";
import { ShardWrites } from "./shard-writes.ts";
import {
  hashShardedKinds,
  runsOn,
  SHARD_LABEL,
  type ShardingOptions,
  serverAppliesShardSelectors,
  shardAccepts,
  shardPlacement,
  warnLostMappings,
} from "./sharded.ts";
import { handleShutdownSignals } from "./signals.ts";
import { exportTraces } from "./tracing.ts";
import { ManagerWebhooks, type WebhookServingOptions } from "./webhooks.ts";

/** Leader election settings (client-go semantics; controller-runtime's 15/10/2 s defaults). */
export interface LeaderElectionOptions extends Partial<ElectionTimings> {
  /** Lease name, a DNS-1123 subdomain. Default: the manager's name, made a valid Lease name (`leaseName`). */
  name?: string;
  /** Lease namespace. Default: the client's default namespace (the pod's). */
  namespace?: string;
  /** Candidate identity. Default: `$POD_NAME_$POD_UID` when set, else host name and a random suffix. */
  identity?: string;
  /** Give the Lease up on shutdown, once the controllers drained, so a successor takes over at once. Default true. */
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
   * The live page at `/debug/kubeloop` on the health port (its JSON at
   * `/debug/kubeloop/state.json`), answering loopback clients only: controllers with their queues
   * and last reconciles, informers, leadership, drift repairs. Default: on outside a cluster, off
   * in one (turn it on with `--live-page` and reach it through `kubectl port-forward`).
   */
  livePage?: boolean;
  /**
   * Leader election; off unless given. Caches start and sync before leadership is won, so a
   * follower that takes over reconciles at once; controllers run only while leading. On
   * shutdown the controllers stop taking keys and their in-flight reconciles drain
   * (`gracefulShutdownMs`) while the Lease is still renewed; once they ended, the reconciles'
   * and leader-only runnables' writes are refused and the Lease is released, so a successor
   * starts after them. When leadership is lost — no renewal within the renew deadline of the
   * last successful one, while draining too, or another holder — writes through
   * {@link Manager.client} are refused from that moment (`WriteFencedError`), every in-flight
   * reconcile's `ctx.signal` aborts, and `start` rejects with `LeadershipLostError`.
   */
  leaderElection?: LeaderElectionOptions | false;
  /**
   * Sharding of the controllers across replicas; off unless given, and not together with
   * `leaderElection`. Each replica holds a fair share of virtual shards (a Lease each), watches
   * only their objects (but for the kinds {@link ShardingOptions.key} caches whole, so that no
   * controller misses an object it declares), and runs the controllers once per held shard: give them with
   * {@link Manager.setup}, which it runs per shard on that shard's cache. A shard given up
   * (rebalance, shutdown) keeps its Lease renewed while its reconciles drain
   * (`gracefulShutdownMs`), then its writes and events are refused, its watches stop, and its
   * Lease is released. One whose Lease could not be renewed within the renew deadline of the last
   * successful renewal (while draining too) has its writes and events refused and its reconciles
   * aborted at once. A replica's membership Lease is deleted when it stops, and owned by its pod
   * (`POD_NAME`, `POD_UID` in `POD_NAMESPACE`) for garbage collection if it dies. See
   * {@link ShardingOptions}.
   */
  sharding?: ShardingOptions | false;
  /**
   * Admission and conversion webhooks to serve (from `validating`, `defaulting`, `conversion` of
   * `kubeloop/webhook`): over HTTPS on every replica, leader or not, from before the caches sync.
   * Handlers get the manager's cache and a client that leadership does not fence. `/readyz` fails
   * while the server is not listening.
   */
  webhooks?: readonly Webhook[];
  /** How the webhooks are served: port, certificate, configurations. See {@link WebhookServingOptions}. */
  webhookServer?: WebhookServingOptions;
  /**
   * How long in-flight reconciles may run once shutdown begins; then their `ctx.signal` aborts
   * and the manager stops without waiting for them. The default of every controller's own
   * `gracefulShutdownMs`. Default 30 s.
   */
  gracefulShutdownMs?: number;
  /**
   * The default of every controller's own `reconciliationTimeoutMs`, as controller-runtime's
   * manager-wide `Controller.ReconciliationTimeout`: how long one reconcile may run before its
   * `ctx.signal` aborts and its client is fenced. Default none.
   */
  reconciliationTimeoutMs?: number;
  /**
   * Logger. Default: pino named after the operator, at `$LOG_LEVEL` (default `info`), readable
   * lines when stdout is a terminal, JSON otherwise.
   */
  logger?: Logger;
  clock?: Clock;
}

/** What builds controllers on a host: an operator's `setup`. */
export type Setup = (host: ControllerHost) => void | Promise<void>;

/** A shard this replica works on: its controllers and its cache. */
interface RunningShard {
  readonly controllers: HostedController[];
  readonly cache: InformerCache;
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
  readonly #runnables: Runnable[] = [];
  readonly #declared: DeclaredKinds;
  /** The client reconciles get: {@link Manager.client}, checking each call's kind was declared. */
  readonly #controllerClient: Client;
  readonly #elector: LeaderElector | undefined;
  /** Aborted when leadership is lost: the fence of {@link Manager.client}. */
  readonly #fence = new AbortController();
  /**
   * With leader election, aborted when leadership is lost or, on shutdown, once the leading work
   * drained: the fence of the reconciles' and leader-only runnables' writes.
   */
  readonly #leading = new AbortController();
  /** The client of the leading work (reconciles, leader-only runnables): fenced by {@link #leading}. */
  readonly #leaderClient: Client;
  #synced: Promise<boolean> = Promise.resolve(false);
  #ready = false;
  #cachesRunning = false;
  #onLeadershipLost: (err: LeadershipLostError) => void = () => {};
  #ports: { metrics?: number; health?: number; webhook?: number } = {};
  /** The webhook server, when webhooks are declared. */
  readonly #webhooks: ManagerWebhooks | undefined;
  /** With sharding: the setups to run on each held shard, what they declare, and the shards running. */
  readonly #setups: Setup[] = [];
  readonly #declarations: ControllerDeclaration[] = [];
  readonly #shards = new Map<number, RunningShard>();
  readonly #coordinator: ShardCoordinator | undefined;
  /** Whether the apiserver applies shard selectors, by kind (`apiVersion/kind`), as asked at start. */
  readonly #serverShards = new Map<string, boolean>();
  /** With sharding: merges the watches of the shards held, once the replica started holding shards. */
  #merger: WatchMerger | undefined;
  /** How the shared cache, and each shard's, makes its informers. */
  readonly #cacheOptions: InformerCacheOptions;

  private constructor(options: ManagerOptions, client: Client, logger: Logger, metrics: ManagerMetrics) {
    this.name = options.name;
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.client = options.leaderElection ? client.fenced(this.#fence.signal) : client;
    this.#leaderClient = options.leaderElection ? client.fenced(this.#leading.signal) : client;
    this.logger = logger;
    this.metrics = metrics;
    this.#declared = new DeclaredKinds(
      logger,
      options.permissions?.map((p) => p.type),
    );
    this.#controllerClient = this.#leaderClient.observed((type, verb) =>
      this.#declared.check(type, `client.${verb}`),
    );
    const withFallbackWarning = shardFallbackWarnings(logger);
    this.#cacheOptions = {
      ...options.cache,
      namespace: options.namespace,
      clock: this.#clock,
      metrics: (type) =>
        withFallbackWarning(
          withPodEvents(metrics.informer(type), type, ownPod(process.env), () => this.recorder),
          type,
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
    };
    this.cache = new InformerCache(this.client, this.#cacheOptions);
    metrics.trackCachedObjects(() => this.#informers());
    metrics.trackInformerSync(() => this.#informers());
    this.recorder = new EventRecorder(this.client, this.#recorderOptions());
    // Leases are written through the unfenced client (a Lease held may still be released), with a
    // rate limit of their own, as controller-runtime gives leader election a client of its own:
    // a renewal queued behind thousands of a controller's writes would lose the Lease.
    this.#elector = this.#makeElector(client.limited(10, 10));
    this.#webhooks = options.webhooks?.length
      ? new ManagerWebhooks(options.webhooks, options.webhookServer ?? {}, {
          name: options.name,
          client,
          cache: this.cache,
          registry: metrics.registry,
          logger,
          clock: this.#clock,
          inCluster: runningInCluster(),
          ...(options.namespace === undefined ? {} : { watchNamespace: options.namespace }),
        })
      : undefined;
    this.#coordinator = this.#makeCoordinator(client);
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

  /** Ports the endpoints and the webhook server listen on, once started (useful with `port: 0`). */
  get ports(): { metrics?: number; health?: number; webhook?: number } {
    return {
      ...this.#ports,
      ...(this.#webhooks?.port === undefined ? {} : { webhook: this.#webhooks.port }),
    };
  }

  /**
   * The kinds its controllers used (client calls, cached reads) without declaring them, as
   * `Kind (apiVersion)`: each was warned about once; `startOperator`'s `stop()` fails on them.
   */
  get undeclaredKinds(): readonly string[] {
    return this.#declared.undeclared;
  }

  /**
   * True once the caches have synced (a follower's too: it stands by with warm caches); with
   * sharding, those of every shard held too.
   */
  get ready(): boolean {
    return this.#ready && [...this.#shards.values()].every((shard) => shard.cache.synced);
  }

  /**
   * True while this manager holds the leader Lease; with sharding, while it holds shard 0 (where
   * leader-only runnables run); always true with neither.
   */
  isLeader(): boolean {
    if (this.#coordinator) return this.#shards.has(0);
    return this.#elector?.isLeader() ?? true;
  }

  /** Controllers registered so far; with sharding, those of the shards held now (one per controller and shard). */
  get controllers(): readonly HostedController[] {
    if (!this.#coordinator) return this.#controllers;
    return [...this.#shards.values()].flatMap((shard) => shard.controllers);
  }

  /** The virtual shards this replica holds now, in index order; empty without sharding. */
  shardsHeld(): number[] {
    return [...this.#shards.keys()].sort((a, b) => a - b);
  }

  /**
   * Builds the controller `spec` declares on the shared informers and runs it with the manager.
   * `controller(manager)...reconcile(fn)` calls this. Throws {@link DuplicateControllerError}
   * when a controller of that name is already registered.
   */
  addController<T extends KubeObject>(spec: ControllerSpec<T>): void {
    const { name } = spec.declaration;
    if (this.#coordinator) {
      throw new ShardingSetupError(
        `controller "${name}" was given to a sharded manager directly`,
        "a sharded manager builds its controllers once per held shard: pass the function that builds them to manager.setup(fn) (runOperator does)",
      );
    }
    if (this.#controllers.some((c) => c.name === name)) throw new DuplicateControllerError(name);
    this.#declared.addController(spec.declaration);
    const built = this.#build(spec, { cache: this.cache, metrics: this.metrics.controller(name) });
    this.metrics.trackQueue(name, built.queue);
    this.#controllers.push(built);
  }

  /**
   * Adds work to run besides the controllers, before {@link Manager.start}: on the replica that
   * leads (with sharding, the holder of shard 0) unless `runnable.leaderOnly` is false, then on
   * every replica once the caches synced. Throws {@link DuplicateRunnableError} for a name
   * already added.
   */
  add(runnable: Runnable): void {
    if (this.#runnables.some((r) => r.name === runnable.name))
      throw new DuplicateRunnableError(runnable.name);
    this.#runnables.push(runnable);
  }

  /**
   * Builds controllers with `setup` (an operator's): on this manager at once, or, with sharding,
   * on each shard this replica comes to hold, with that shard's cache — learning first, from a run
   * of `setup` on a host that starts nothing, what its controllers reconcile, own and watch.
   */
  async setup(setup: Setup): Promise<void> {
    if (!this.#coordinator) return setup(this);
    for (const declaration of await recordDeclarations(setup, this.#options.namespace)) {
      const { name } = declaration;
      if (this.#declarations.some((d) => d.name === name)) throw new DuplicateControllerError(name);
      this.#declared.addController(declaration);
      this.#declarations.push(declaration);
    }
    this.#setups.push(setup);
  }

  /** The controller `spec` describes, on the given cache and metrics (and a shard's wiring). */
  #build<T extends KubeObject>(
    spec: ControllerSpec<T>,
    deps: Pick<ControllerDeps, "cache" | "metrics"> & Partial<ControllerDeps>,
  ): Controller<T> {
    const { gracefulShutdownMs, reconciliationTimeoutMs } = this.#options;
    const options = { gracefulShutdownMs, reconciliationTimeoutMs, ...spec.options };
    return buildController(
      { ...spec, options },
      {
        client: this.#controllerClient,
        logger: this.logger,
        recorder: this.recorder,
        clock: this.#clock,
        ...deps,
      },
    );
  }

  /**
   * Runs until `signal` aborts: serves endpoints and webhooks (see {@link ManagerOptions.webhooks}), starts the caches and waits for them to sync,
   * then (with leader election, once leading) runs every controller. Shuts down gracefully: stops
   * taking work, lets reconciles finish for up to `gracefulShutdownMs` (then aborts them), closes
   * watches, flushes events, releases the Lease. Rejects with the caches' `CacheSyncTimeoutError`
   * when they do not sync, and with `LeadershipLostError` when leadership is lost, so that the
   * process exits (and restarts clean).
   */
  async start(signal: AbortSignal): Promise<void> {
    const servers = await this.#serve();
    try {
      await this.#webhooks?.start();
    } catch (err) {
      await this.#webhooks?.stop();
      for (const server of servers) server.close();
      throw err;
    }
    this.logger.info(
      { controllers: this.#controllers.map((c) => c.name), ...this.#ports },
      "manager starting",
    );
    const caches = new AbortController();
    // As controller-runtime, caches start whether or not this replica leads ("warm" followers):
    // a follower that takes over reconciles at once instead of listing everything first.
    this.cache.start(caches.signal);
    this.#cachesRunning = true;
    this.#synced = this.#syncCaches(signal);
    const everywhere = this.#synced.then(
      (synced) =>
        synced ? this.#runRunnables(false, caches.signal, this.client, this.#graceMs()) : undefined,
      () => {},
    );
    try {
      if (this.#elector) await this.#campaign(this.#elector, signal);
      else if (this.#coordinator) await this.#runShards(this.#coordinator, signal);
      else if (await this.#synced) await this.#runLeading(signal);
      // Webhooks serve until shutdown, even with no controllers to run.
      if (this.#webhooks) await untilAborted(signal);
    } finally {
      this.#cachesRunning = false;
      caches.abort();
      await everywhere;
      await this.recorder.close(AbortSignal.timeout(5000)).catch(() => {});
      await this.#webhooks?.stop();
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

  /**
   * While leading: the controllers, once the caches (started before leadership) have synced,
   * until `signal` tells them to stop (they drain while the elector renews the Lease) or `lost`
   * aborts (fenced and aborted at once). Before the Lease is released, the leading work's writes
   * are fenced: a reconcile that outlived its drain writes nothing after a successor starts.
   */
  async #lead(signal: AbortSignal, lost: AbortSignal): Promise<void> {
    this.logger.info("became leader");
    const onLost = () => this.#onLeadershipLost(lost.reason);
    lost.addEventListener("abort", onLost, { once: true });
    try {
      const synced = await Promise.race([this.#synced.catch(() => false), untilAborted(signal)]);
      if (synced === true && !signal.aborted) await this.#runLeading(signal);
    } finally {
      lost.removeEventListener("abort", onLost);
      this.#leading.abort(new Error("leadership released: the Lease is given up"));
    }
  }

  /** The controllers and the leader-only runnables, until `signal` aborts and they drained. */
  async #runLeading(signal: AbortSignal): Promise<void> {
    this.logger.info("controllers running");
    await Promise.all([
      ...this.#controllers.map((c) => c.run(signal)),
      this.#runRunnables(true, signal, this.#leaderClient, this.#graceMs()),
    ]);
  }

  /**
   * Runs the runnables that are `leaderOnly` (or not) with `client` until `signal` aborts; resolves
   * once they returned, or `graceMs` after the abort for one that ignores it.
   */
  async #runRunnables(
    leaderOnly: boolean,
    signal: AbortSignal,
    client: Client,
    graceMs: number,
  ): Promise<void> {
    const chosen = this.#runnables.filter((r) => (r.leaderOnly ?? true) === leaderOnly);
    await Promise.all(
      chosen.map((runnable) => {
        const logger = this.logger.child({ runnable: runnable.name });
        const deps = { clock: this.#clock, metrics: this.metrics.runnables };
        const work = keepRunning(runnable, { signal, client, logger }, deps);
        return drained(work, signal, graceMs, this.#clock, () =>
          logger.warn({ graceMs }, "runnable still running after the shutdown grace; no longer waited for"),
        );
      }),
    );
  }

  /** How long in-flight work may run once it is told to stop. */
  #graceMs(): number {
    return this.#options.gracefulShutdownMs ?? 30_000;
  }

  /** With sharding: takes part in holding the shards until `signal` aborts, once the shared caches synced. */
  async #runShards(coordinator: ShardCoordinator, signal: AbortSignal): Promise<void> {
    if (!(await this.#synced)) return;
    await this.#askServerShards(signal);
    this.#merger = new WatchMerger({
      cache: this.cache,
      // Shards change hands for a retry period or two while replicas come and go; merge after that.
      settleMs:
        2 * ((this.#options.sharding || undefined)?.retryPeriodMs ?? defaultElectionTimings.retryPeriodMs),
      clock: this.#clock,
      logger: this.logger,
      signal,
      syncTimeoutMs: this.cache.syncTimeoutMs,
    });
    this.logger.info({ identity: coordinator.identity }, "sharding: claiming a fair share of the shards");
    await coordinator.run(signal);
  }

  /**
   * Asks the apiserver, once per kind the shards narrow by hash, whether it applies shard
   * selectors: a list of one object, whose `shardInfo` echoes an applied selector. A kind it
   * ignores them for (feature gate `ShardedListAndWatch` off, an older cluster) is watched once by
   * this replica and seen by each shard through a filter of the same hash, rather than received
   * whole by every shard's informer: said once in the log and in `kubeloop_shard_client_filtered`.
   * A kind it cannot ask about is left to the shards' informers, which check on the client too.
   */
  async #askServerShards(signal: AbortSignal): Promise<void> {
    const key = this.#shardKey();
    for (const type of hashShardedKinds(key, this.#declarations)) {
      try {
        const applied = await serverAppliesShardSelectors(
          this.client,
          type,
          key,
          this.#options.namespace,
          signal,
        );
        this.#serverShards.set(`${type.apiVersion}/${type.kind}`, applied);
        this.metrics.clientFiltered(type.kind, !applied);
        if (!applied) {
          this.logger.warn(
            { kind: type.kind },
            `the apiserver ignores shard selectors for ${type.kind}: this replica watches the whole kind once and each shard filters it; ` +
              "turn on the apiserver's ShardedListAndWatch feature gate (Kubernetes 1.36+) so that each replica receives only its shards",
          );
        }
      } catch (err) {
        if (signal.aborted) return;
        this.logger.warn(
          { err, kind: type.kind },
          "sharding: could not ask whether the apiserver shards this kind; each shard's informer checks on the client",
        );
      }
    }
  }

  #shardKey(): ShardKey {
    return (this.#options.sharding || undefined)?.key ?? "namespace";
  }

  /**
   * Works on `shard` while this replica holds it: runs the setups on the shard's cache, waits for
   * it to sync, runs its controllers, whose writes and events go through the shard's fence. When
   * `signal` aborts, the shard is given up: its controllers drain (their graceful shutdown) while
   * the coordinator keeps its Lease renewed. When `lost` aborts, its writes are fenced and its
   * reconciles aborted at once. Either way the fence is up and its informers stopped before this
   * resolves, and the coordinator releases the Lease after that.
   */
  async #runShard(shard: HeldShard, signal: AbortSignal, lost: AbortSignal): Promise<void> {
    const key = this.#shardKey();
    const stopped = new AbortController();
    const writes = new ShardWrites(this.client, this.#recorderOptions());
    const serverShards = (type: ResourceType) =>
      this.#serverShards.get(`${type.apiVersion}/${type.kind}`) ?? true;
    const place = shardPlacement(key, shard, this.#declarations, serverShards);
    const merging = this.#merger && { merger: this.#merger, shard };
    const cache = new ShardCache(this.client, this.#cacheOptions, this.cache, place, stopped.signal, merging);
    const running: RunningShard = { controllers: [], cache };
    const ends: (() => void)[] = [];
    const host: ControllerHost = {
      cache,
      addController: (spec) => {
        if (!runsOn(key, shard, spec.declaration)) return;
        const { name, primary } = spec.declaration;
        const metrics = this.metrics.controller(name);
        const built = this.#build(spec, {
          cache,
          metrics,
          recorder: writes.recorder,
          client: writes.fenced(this.#controllerClient),
          accepts: shardAccepts(
            key,
            shard,
            cache.informer(primary.type, primary.scope),
            warnLostMappings(
              spec.declaration,
              place,
              (type) => cache.scopeFor(type),
              (message) => this.logger.warn({ controller: name }, message),
            ),
          ),
          childLabels: key === "uid" ? { [SHARD_LABEL]: String(shard.index) } : undefined,
        });
        const untrack = this.metrics.trackQueue(name, built.queue);
        ends.push(untrack, () => metrics.maxConcurrent(0));
        running.controllers.push(built);
      },
    };
    const lose = () => {
      writes.lose(lost.reason);
      for (const controller of running.controllers) controller.abort(lost.reason);
    };
    lost.addEventListener("abort", lose, { once: true });
    try {
      for (const setup of this.#setups) await setup(host);
      this.#holding(shard, running);
      cache.start(stopped.signal);
      const synced = await cache.waitForSync(signal).then(
        () => true,
        (err: unknown) => (signal.aborted ? false : Promise.reject(err)),
      );
      if (synced) {
        // Shard 0's holder is the replica elected for what runs once per operator.
        const leading =
          shard.index === 0
            ? [this.#runRunnables(true, signal, writes.fenced(this.client), this.#graceMs())]
            : [];
        await Promise.all([...running.controllers.map((c) => c.run(signal)), ...leading]);
      }
    } finally {
      lost.removeEventListener("abort", lose);
      // A reconcile that outlived the drain (it ignores its aborted signal) writes nothing more:
      // the Lease is released next, and another replica may take the shard.
      await writes.release(new Error(`shard ${shard.index} released`));
      stopped.abort();
      await Promise.all(cache.informers().map((informer) => informer.stop()));
      for (const end of ends) end();
      if (this.#shards.get(shard.index) === running) this.#released(shard, writes.lost);
    }
  }

  /** Every informer this manager runs: the shared cache's and the held shards'. */
  #informers(): Informer<KubeObject>[] {
    return [
      ...this.cache.informers(),
      ...[...this.#shards.values()].flatMap((shard) => shard.cache.informers()),
    ];
  }

  /** For `/readyz?verbose`: the shards held, e.g. `held 0,3,7 of 16`. */
  #shardsReport(coordinator: ShardCoordinator): string {
    const held = this.shardsHeld();
    return `held ${held.length ? held.join(",") : "none"} of ${coordinator.shards}`;
  }

  #holding(shard: HeldShard, running: RunningShard): void {
    this.#shards.set(shard.index, running);
    this.metrics.shardsHeld.set({}, this.#shards.size);
    this.metrics.shardHandover("acquired", shard);
    this.logger.info({ shard: shard.index, unownedMs: shard.unownedMs }, "shard acquired");
  }

  #released(shard: HeldShard, lost: boolean): void {
    this.#shards.delete(shard.index);
    this.metrics.shardsHeld.set({}, this.#shards.size);
    this.metrics.shardHandover(lost ? "lost" : "released");
    if (lost)
      this.logger.error({ shard: shard.index }, "shard lost: its writes were fenced and reconciles aborted");
    else this.logger.info({ shard: shard.index }, "shard released after its work drained");
  }

  /**
   * Leadership is lost: from this moment no write goes through {@link Manager.client}, and every
   * reconcile in flight is aborted, with no grace period (controller-runtime drops it to zero).
   * Reconcilers that ignore their signal may go on running, but nothing they write is sent.
   */
  #fenceOff(err: LeadershipLostError): void {
    this.#fence.abort(err);
    this.#leading.abort(err);
    for (const controller of this.#controllers) controller.abort(err);
    this.logger.error({ err }, "leadership lost: writes fenced, reconciles aborted; stopping");
  }

  #makeCoordinator(client: Client): ShardCoordinator | undefined {
    const sharding = this.#options.sharding;
    if (!sharding) return undefined;
    if (this.#options.leaderElection) {
      throw new ShardingSetupError(
        "sharding and leader election were both asked for",
        "turn leader election off (leaderElection: false; kubeloop run --shards turns it off): each shard is elected on a Lease of its own",
      );
    }
    const { name, namespace = client.defaultNamespace, identity, key: _key, ...rest } = sharding;
    // Each retry period: a renewal per shard held or a read per shard campaigned for, the
    // membership, a list; twice that rate leaves room for retries.
    const calls = (sharding.shards ?? 32) + 2;
    const periodS = (sharding.retryPeriodMs ?? defaultElectionTimings.retryPeriodMs) / 1000;
    const pod = podIn(namespace);
    return new ShardCoordinator({
      ...rest,
      client: client.limited(Math.max(10, (2 * calls) / periodS), calls),
      name: name ?? this.name,
      namespace,
      identity: identity ?? podIdentity(),
      ...(pod ? { pod } : {}),
      clock: this.#clock,
      onShard: (shard, signal, lost) => this.#runShard(shard, signal, lost),
      onError: (err, phase) => {
        if (phase !== "callback") return this.#leaseError(err, phase, "sharding");
        this.logger.error(
          { err },
          "sharding: a shard's work failed; the shard is given up, to be taken again",
        );
      },
    });
  }

  #makeElector(client: Client): LeaderElector | undefined {
    const election = this.#options.leaderElection;
    if (!election) return undefined;
    return new LeaderElector({
      ...election,
      client,
      name: election.name ?? leaseName(this.name),
      identity: election.identity ?? podIdentity(),
      clock: this.#clock,
      metrics: {
        masterStatus: (name, value) => this.metrics.leader.set({ name }, value),
        leaderTransition: () => {},
      },
      onStartedLeading: (signal, lost) => this.#lead(signal, lost),
      onStoppedLeading: () => this.logger.warn("stopped leading"),
      onNewLeader: (identity) => this.logger.info({ leader: identity }, "new leader observed"),
      onError: (err, phase) => {
        if (phase !== "callback") return this.#leaseError(err, phase, "leader election");
        this.logger.error({ err }, "leader election: a callback threw");
      },
    });
  }

  /** Logs and counts a failed Lease call (see `lease-errors.ts`). */
  #leaseError(err: unknown, phase: LeasePhase, what: string): void {
    reportLeaseError(this.logger, this.metrics, err, phase, what);
  }

  /** How the manager's recorders (its own, and each held shard's) report events. */
  #recorderOptions(): EventRecorderOptions {
    return {
      reportingController: this.#options.name,
      reportingInstance: process.env.POD_NAME ?? undefined,
      logger: this.logger,
      clock: this.#clock,
    };
  }

  async #serve() {
    const resolved = resolveEndpoints(this.#options, runningInCluster());
    const { servers, ports } = await startEndpoints(resolved, {
      name: this.name,
      registry: this.metrics.registry,
      checks: this.#checks(),
      live: () =>
        liveState(this.#liveSource()).catch((err: unknown) => {
          this.logger.error({ err }, "the live page's state could not be read; the page shows the 500");
          throw err;
        }),
      client: this.client,
      clock: this.#clock,
      logger: this.logger,
    });
    this.#ports = ports;
    if (resolved.livePage) {
      this.logger.info({ url: `http://127.0.0.1:${ports.health}${LIVE_PATH}` }, "live page (loopback only)");
    } else if (this.#options.livePage && !resolved.health) {
      this.logger.warn("the live page was asked for, but it is served on the health port, which is off");
    }
    return servers;
  }

  /** What the live page reads of this manager. */
  #liveSource(): LiveSource {
    return {
      name: this.name,
      registry: this.metrics.registry,
      clock: this.#clock,
      ready: () => this.ready,
      controllers: () => this.controllers,
      informers: () => this.#informers(),
      leadership: () => leadershipOf(this.#elector, this.#coordinator, this.shardsHeld()),
    };
  }

  #checks(): { healthz: Record<string, Check>; readyz: Record<string, Check> } {
    const coordinator = this.#coordinator;
    const source = {
      informers: () => this.#informers(),
      controllers: () => this.controllers,
      cachesRunning: () => this.#cachesRunning,
    };
    return {
      healthz: { ping: () => true, informers: informersAlive(source), controllers: controllersAlive(source) },
      readyz: {
        "informers-synced": informersSynced(source),
        ...(coordinator ? { shards: () => this.#shardsReport(coordinator) } : {}),
        ...(this.#webhooks ? { webhook: this.#webhooks.listening } : {}),
        ...(this.#webhooks?.injectsCa ? { "webhook-ca": this.#webhooks.trusted } : {}),
      },
    };
  }
}

/**
 * Starts `manager` (exporting traces when `OTEL_EXPORTER_OTLP_ENDPOINT` is set) and stops it
 * gracefully on SIGTERM or SIGINT; a second signal exits the process
 * at once with code 130. Sets a non-zero exit code when it fails. When leadership is lost it exits the process at once with code 1, as the `main` that
 * kubebuilder scaffolds for controller-runtime does (`os.Exit(1)`): a reconcile that ignores its
 * aborted signal must not keep alive a process that may no longer write, and a fresh process
 * campaigns again with fresh caches.
 */
export async function runManager(manager: Manager): Promise<void> {
  const controller = new AbortController();
  const unhandle = handleShutdownSignals(manager.logger, controller);
  // Traces over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT asks for them (see tracing.ts).
  const traces = await exportTraces(manager.name, manager.logger);
  try {
    await manager.start(controller.signal);
  } catch (err) {
    manager.logger.error({ err }, "manager failed");
    process.exitCode = 1;
    if (err instanceof LeadershipLostError) process.exit(1);
  } finally {
    unhandle();
    await traces?.shutdown().catch((err: unknown) => manager.logger.warn({ err }, "traces not flushed"));
  }
}
