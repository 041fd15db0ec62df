/**
 * The manager: one client, one informer cache, one event recorder and one metrics registry
 * shared by every controller of a process; health and metrics endpoints; optional leader
 * election; graceful shutdown.
 *
 * One class of ~550 lines on purpose: its lifecycle (serve, sync, campaign or shard, lead, drain,
 * fence, stop) shares the fences, the caches and the controllers, and reads best in order; what
 * it runs lives in rooms of its own (`endpoints`, `webhook`, `shards`, `runnable.ts`, `run.ts`).
 */
import type { Logger } from "pino";
import type { KubeObject } from "../api/index.ts";
import { BudgetWatch, type Informer, InformerCache, type InformerCacheOptions } from "../cache/index.ts";
import { Client } from "../client/index.ts";
import { type Clock, systemClock, untilAborted } from "../clock/index.ts";
import {
  buildController,
  type Controller,
  type ControllerDeclaration,
  type ControllerDeps,
  type ControllerHost,
  type ControllerSpec,
  type HostedController,
  recordDeclarations,
} from "../controller/index.ts";
import { LeaderElector, type LeadershipLostError, leaseName } from "../election/index.ts";
import {
  type Check,
  controllersAlive,
  informersAlive,
  informersSynced,
  LIVE_PATH,
  type LiveSource,
  leadershipOf,
  liveState,
  resolveEndpoints,
  runningInCluster,
  type ShownFleet,
  startEndpoints,
} from "../endpoints/index.ts";
import { EventRecorder, type EventRecorderOptions } from "../events/index.ts";
import { type Setup, ShardRunner } from "../shards/index.ts";
import { ManagerWebhooks } from "../webhook/index.ts";
import {
  logBudgetCrossing,
  logDivergence,
  logInformerFailure,
  ownPod,
  shardFallbackWarnings,
  withPodEvents,
} from "./cache-reports.ts";
import { DeclaredKinds } from "./declared-kinds.ts";
import { DuplicateControllerError, DuplicateRunnableError, ShardingSetupError } from "./errors.ts";
import { type LeasePhase, reportLeaseError } from "./lease-errors.ts";
import { createLogger } from "./logger.ts";
import { ManagerMetrics } from "./metrics.ts";
import type { ManagerOptions } from "./options.ts";
import { podIdentity, podIn } from "./pod.ts";
import { drained, keepRunning, type Runnable } from "./runnable.ts";

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
  /** With sharding: runs the controllers on the shards this replica holds. */
  readonly #shards: ShardRunner | undefined;
  /** How the shared cache, and each shard's, makes its informers. */
  readonly #cacheOptions: InformerCacheOptions;
  #fleet: ShownFleet | undefined;

  private constructor(options: ManagerOptions, client: Client, logger: Logger, metrics: ManagerMetrics) {
    this.name = options.name;
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.client = options.leaderElection ? client.fenced(this.#fence.signal) : client;
    this.#leaderClient = options.leaderElection ? client.fenced(this.#leading.signal) : client;
    this.logger = logger;
    this.metrics = metrics;
    const permitted = options.permissions?.map((p) => p.type);
    this.#declared = new DeclaredKinds(logger, permitted);
    this.#controllerClient = this.#leaderClient.observed((type, verb) =>
      this.#declared.check(type, `client.${verb}`),
    );
    const withFallbackWarning = shardFallbackWarnings(logger);
    const { budgets = {}, ...cache } = options.cache ?? {};
    const budgetWatch = new BudgetWatch(budgets, (crossing) => {
      metrics.cacheBudgetExceeded(crossing.type.kind, crossing.exceeded);
      logBudgetCrossing(logger, crossing);
    });
    for (const kind of Object.keys(budgets))
      metrics.cacheBudgetExceeded(kind.split("/").pop() ?? kind, false);
    this.#cacheOptions = {
      ...cache,
      namespace: options.namespace,
      clock: this.#clock,
      metrics: (type) =>
        budgetWatch.watch(
          withFallbackWarning(
            withPodEvents(metrics.informer(type), type, ownPod(process.env), () => this.recorder),
            type,
          ),
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
    metrics.trackCachedBytes(() => this.#informers());
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
    this.#shards = this.#makeShardRunner();
  }

  /** Creates a manager, loading the client configuration when no client is given. */
  static async create(options: ManagerOptions): Promise<Manager> {
    const logger = options.logger ?? createLogger(options.name);
    // Process metrics hang the registry on a PerformanceObserver (GC durations) that is never
    // disconnected: with no endpoint to scrape them, they would only keep the manager alive.
    const metrics = new ManagerMetrics(options.clock ?? systemClock, {
      processMetrics: options.metrics !== false,
    });
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
    return this.#ready && (this.#shards?.synced ?? true);
  }

  /**
   * True while this manager holds the leader Lease; with sharding, while it holds shard 0 (where
   * leader-only runnables run); always true with neither.
   */
  isLeader(): boolean {
    if (this.#shards) return this.#shards.holds(0);
    return this.#elector?.isLeader() ?? true;
  }

  /** Controllers registered so far; with sharding, those of the shards held now (one per controller and shard). */
  get controllers(): readonly HostedController[] {
    return this.#shards?.controllers ?? this.#controllers;
  }

  /** The virtual shards this replica holds now, in index order; empty without sharding. */
  shardsHeld(): number[] {
    return this.#shards?.held() ?? [];
  }

  /**
   * Builds the controller `spec` declares on the shared informers and runs it with the manager.
   * `controller(manager)...reconcile(fn)` calls this. Throws {@link DuplicateControllerError}
   * when a controller of that name is already registered.
   */
  addController<T extends KubeObject>(spec: ControllerSpec<T>): void {
    const { name } = spec.declaration;
    if (this.#shards) {
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
   * Adds work to run besides the controllers, before {@link Manager.start}: on the replica that leads
   * (with sharding, the holder of shard 0) unless `runnable.leaderOnly` is false, then on every
   * replica once the caches synced. Throws {@link DuplicateRunnableError} for a name already added.
   */
  add(runnable: Runnable): void {
    if (this.#runnables.some((r) => r.name === runnable.name))
      throw new DuplicateRunnableError(runnable.name);
    this.#runnables.push(runnable);
  }

  /** Shows `fleet` before {@link Manager.start}: its readiness on `/readyz`, its clusters on the live page. */
  showFleet(fleet: ShownFleet): void {
    this.#fleet = fleet;
  }

  /**
   * Builds controllers with `setup` (an operator's): on this manager at once, or, with sharding,
   * on each shard this replica comes to hold, with that shard's cache — learning first what its
   * controllers reconcile, own and watch: `declared` when the caller recorded it already
   * (`recordDeclarations(setup)`, as runOperator does), else from a run of `setup` on a host that
   * starts nothing.
   */
  async setup(setup: Setup, declared?: readonly ControllerDeclaration[]): Promise<void> {
    const shards = this.#shards;
    if (!shards) return setup(this);
    for (const declaration of declared ?? (await recordDeclarations(setup, this.#options.namespace))) {
      const { name } = declaration;
      if (shards.declarations.some((d) => d.name === name)) throw new DuplicateControllerError(name);
      this.#declared.addController(declaration);
      shards.declare(declaration);
    }
    shards.add(setup);
  }

  /** The controller `spec` describes, on the given cache and metrics (and a shard's wiring). */
  #build<T extends KubeObject>(
    spec: ControllerSpec<T>,
    deps: Pick<ControllerDeps, "cache" | "metrics"> & Partial<ControllerDeps>,
  ): Controller<T> {
    const { gracefulShutdownMs, reconciliationTimeoutMs, readYourOwnWrites } = this.#options;
    const options = { gracefulShutdownMs, reconciliationTimeoutMs, readYourOwnWrites, ...spec.options };
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
      else if (this.#shards) await this.#runShards(this.#shards, signal);
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
  async #runShards(shards: ShardRunner, signal: AbortSignal): Promise<void> {
    if (await this.#synced) await shards.run(signal);
  }

  /** Every informer this manager runs: the shared cache's and the held shards'. */
  #informers(): Informer<KubeObject>[] {
    return [...this.cache.informers(), ...(this.#shards?.informers() ?? [])];
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

  #makeShardRunner(): ShardRunner | undefined {
    const sharding = this.#options.sharding;
    if (!sharding) return undefined;
    if (this.#options.leaderElection) {
      throw new ShardingSetupError(
        "sharding and leader election were both asked for",
        "turn leader election off (leaderElection: false; kubeloop run --shards turns it off): each shard is elected on a Lease of its own",
      );
    }
    const namespace = sharding.namespace ?? this.client.defaultNamespace;
    const pod = podIn(namespace);
    return new ShardRunner({
      sharding: { ...sharding, namespace, identity: sharding.identity ?? podIdentity() },
      ...(pod ? { pod } : {}),
      client: this.client,
      controllerClient: this.#controllerClient,
      cache: this.cache,
      cacheOptions: this.#cacheOptions,
      ...(this.#options.namespace === undefined ? {} : { namespace: this.#options.namespace }),
      name: this.name,
      logger: this.logger,
      clock: this.#clock,
      metrics: this.metrics,
      recorderOptions: () => this.#recorderOptions(),
      build: (spec, deps) => this.#build(spec, deps),
      runLeading: (signal, client) => this.#runRunnables(true, signal, client, this.#graceMs()),
      onLeaseError: (err, phase) => this.#leaseError(err, phase, "sharding"),
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
        liveState(this.liveSource()).catch((err: unknown) => {
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
  liveSource(): LiveSource {
    return {
      ...(this.#fleet && { clusters: this.#fleet.liveClusters }),
      name: this.name,
      registry: this.metrics.registry,
      clock: this.#clock,
      ready: () => this.ready,
      controllers: () => this.controllers,
      informers: () => this.#informers(),
      leadership: () => leadershipOf(this.#elector, this.#shards?.coordinator, this.shardsHeld()),
    };
  }

  #checks(): { healthz: Record<string, Check>; readyz: Record<string, Check> } {
    const shards = this.#shards;
    const source = {
      informers: () => this.#informers(),
      controllers: () => this.controllers,
      cachesRunning: () => this.#cachesRunning,
    };
    return {
      healthz: { ping: () => true, informers: informersAlive(source), controllers: controllersAlive(source) },
      readyz: {
        "informers-synced": informersSynced(source),
        ...(shards ? { shards: () => shards.report() } : {}),
        ...(this.#fleet && { fleet: this.#fleet.readiness }),
        ...(this.#webhooks ? { webhook: this.#webhooks.listening } : {}),
        ...(this.#webhooks?.injectsCa ? { "webhook-ca": this.#webhooks.trusted } : {}),
      },
    };
  }
}
