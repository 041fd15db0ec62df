/**
 * The shard runner: what a sharded manager does with the shards its replica holds. It takes part
 * in holding them ({@link ShardCoordinator}), and on each shard held runs the operator's setups
 * on a cache of that shard ({@link ShardCache}), its controllers with writes and events fenced
 * by the shard ({@link ShardWrites}), and, on shard 0, the leader-only work.
 */
import type { Logger } from "pino";
import type { KubeObject, ResourceType } from "../api/index.ts";
import type { Informer, InformerCache, InformerCacheOptions } from "../cache/index.ts";
import type { Client } from "../client/index.ts";
import type { Clock } from "../clock/index.ts";
import type {
  Controller,
  ControllerDeclaration,
  ControllerDeps,
  ControllerHost,
  ControllerMetrics,
  ControllerSpec,
  HostedController,
} from "../controller/index.ts";
import { defaultElectionTimings, type ElectionPhase } from "../election/index.ts";
import type { EventRecorderOptions } from "../events/index.ts";
import type { WorkQueue } from "../queue/index.ts";
import type { ShardKey } from "../sharding/index.ts";
import { type HeldShard, ShardCoordinator } from "./coordinator.ts";
import type { ReplicaPod } from "./membership.ts";
import {
  hashShardedKinds,
  runsOn,
  SHARD_LABEL,
  type ShardingOptions,
  serverAppliesShardSelectors,
  shardAccepts,
  shardLabelValue,
  shardPlacement,
  warnLostMappings,
} from "./placement.ts";
import { ShardCache } from "./shard-cache.ts";
import { labelShardObjects } from "./shard-labels.ts";
import { ShardWrites } from "./shard-writes.ts";
import { WatchMerger } from "./watch-merger.ts";

/** What builds controllers on a host: an operator's `setup`. */
export type Setup = (host: ControllerHost) => void | Promise<void>;

/** The manager's metrics a shard runner reports to. */
export interface ShardRunnerMetrics {
  readonly shardsHeld: { set(labels: Record<string, never>, value: number): void };
  shardHandover(event: "acquired" | "released" | "lost", shard?: { index: number; unownedMs?: number }): void;
  clientFiltered(kind: string, filtered: boolean): void;
  shardLabelled(kind: string, labelled: boolean): void;
  shardLabelFailed(kind: string): void;
  controller(name: string): ControllerMetrics;
  trackQueue(name: string, queue: WorkQueue): () => void;
}

/** What a {@link ShardRunner} runs with: the manager's own, passed in. */
export interface ShardRunnerOptions {
  /** The manager's sharding options; `identity` and `namespace` already resolved. */
  sharding: ShardingOptions & { namespace: string };
  /** The pod of this replica, owning its membership Lease. */
  pod?: ReplicaPod;
  /** The manager's client; Leases go through a rate limit of their own on it. */
  client: Client;
  /** The client reconciles get (checking declared kinds), fenced per shard. */
  controllerClient: Client;
  /** The manager's shared cache, and the options each shard's cache is made with. */
  cache: InformerCache;
  cacheOptions: InformerCacheOptions;
  /** The manager's namespace, when it watches one only. */
  namespace?: string;
  name: string;
  logger: Logger;
  clock: Clock;
  metrics: ShardRunnerMetrics;
  /** How each shard's recorder reports events. */
  recorderOptions(): EventRecorderOptions;
  /** Builds a controller the manager's way, on the shard's wiring. */
  build<T extends KubeObject>(
    spec: ControllerSpec<T>,
    deps: Pick<ControllerDeps, "cache" | "metrics"> & Partial<ControllerDeps>,
  ): Controller<T>;
  /** Runs the leader-only work with `client` until `signal` aborts and it drained (on shard 0's holder). */
  runLeading(signal: AbortSignal, client: Client): Promise<void>;
  /** A failed Lease call (retried next period). */
  onLeaseError(err: unknown, phase: Exclude<ElectionPhase, "callback"> | "list"): void;
}

/** A shard this replica works on: its controllers and its cache. */
interface RunningShard {
  readonly controllers: HostedController[];
  readonly cache: InformerCache;
}

/** Runs an operator's controllers on the shards its replica holds; see the module's description. */
export class ShardRunner {
  readonly coordinator: ShardCoordinator;
  readonly #options: ShardRunnerOptions;
  /** The setups to run on each held shard, what they declare, and the shards running. */
  readonly #setups: Setup[] = [];
  readonly #declarations: ControllerDeclaration[] = [];
  readonly #shards = new Map<number, RunningShard>();
  /** Whether the apiserver applies shard selectors, by kind (`apiVersion/kind`), as asked at start. */
  readonly #serverShards = new Map<string, boolean>();
  /** Merges the watches of the shards held, once the replica started holding shards. */
  #merger: WatchMerger | undefined;

  constructor(options: ShardRunnerOptions) {
    this.#options = options;
    const { sharding, client, logger } = options;
    const { key: _key, ...rest } = sharding;
    // Each retry period: a renewal per shard held or a read per shard campaigned for, the
    // membership, a list; twice that rate leaves room for retries.
    const calls = (sharding.shards ?? 32) + 2;
    const periodS = (sharding.retryPeriodMs ?? defaultElectionTimings.retryPeriodMs) / 1000;
    this.coordinator = new ShardCoordinator({
      ...rest,
      client: client.limited(Math.max(10, (2 * calls) / periodS), calls),
      name: sharding.name ?? options.name,
      ...(options.pod ? { pod: options.pod } : {}),
      clock: options.clock,
      onShard: (shard, signal, lost) => this.#runShard(shard, signal, lost),
      onError: (err, phase) => {
        if (phase !== "callback") return options.onLeaseError(err, phase);
        logger.error({ err }, "sharding: a shard's work failed; the shard is given up, to be taken again");
      },
      onOtherCount: ({ shards, holders }) => {
        if (shards.length === 0)
          return logger.info("sharding: no replica of another shard count holds our hashes");
        logger.info(
          { shards, holders },
          `sharding: ${shards.length} of our shards wait for replicas of another shard count to release them (a rolling update changing --shards)`,
        );
      },
    });
  }

  /** What the setups given so far declare: a controller of each. */
  get declarations(): readonly ControllerDeclaration[] {
    return this.#declarations;
  }

  /** Records a controller a setup declares: what the shards' caches and placement are planned from. */
  declare(declaration: ControllerDeclaration): void {
    this.#declarations.push(declaration);
  }

  /** Runs `setup` on each shard held from now on (its controllers {@link ShardRunner.declare}d first). */
  add(setup: Setup): void {
    this.#setups.push(setup);
  }

  /** The virtual shards held now, in index order. */
  held(): number[] {
    return [...this.#shards.keys()].sort((a, b) => a - b);
  }

  /** True when shard `index` is held now. */
  holds(index: number): boolean {
    return this.#shards.has(index);
  }

  /** True once every held shard's cache synced. */
  get synced(): boolean {
    return [...this.#shards.values()].every((shard) => shard.cache.synced);
  }

  /** The controllers of the shards held now, one per controller and shard. */
  get controllers(): HostedController[] {
    return [...this.#shards.values()].flatMap((shard) => shard.controllers);
  }

  /** The informers of the held shards' caches. */
  informers(): Informer<KubeObject>[] {
    return [...this.#shards.values()].flatMap((shard) => shard.cache.informers());
  }

  /** For `/readyz?verbose`: the shards held, e.g. `held 0,3,7 of 16`. */
  report(): string {
    const held = this.held();
    return `held ${held.length ? held.join(",") : "none"} of ${this.coordinator.shards}`;
  }

  /** Takes part in holding the shards until `signal` aborts (call it once the shared caches synced). */
  async run(signal: AbortSignal): Promise<void> {
    const { cache, clock, logger, sharding } = this.#options;
    await this.#askServerShards(signal);
    this.#merger = new WatchMerger({
      cache,
      // Shards change hands for a retry period or two while replicas come and go; merge after that.
      settleMs: 2 * (sharding.retryPeriodMs ?? defaultElectionTimings.retryPeriodMs),
      clock,
      logger,
      signal,
      syncTimeoutMs: cache.syncTimeoutMs,
    });
    logger.info({ identity: this.coordinator.identity }, "sharding: claiming a fair share of the shards");
    await this.coordinator.run(signal);
  }

  /**
   * Asks the apiserver, once per kind the shards narrow by hash, whether it applies shard
   * selectors: a list of one object, whose `shardInfo` echoes an applied selector. A kind it
   * ignores them for (feature gate `ShardedListAndWatch` off, an older cluster) is placed by the
   * shard label if it is a controller's primary kind (`kubeloop_shard_labelled`); any other is
   * watched once by this replica and seen by each shard through a filter of the same hash
   * (`kubeloop_shard_client_filtered`); either said once in the log. A kind it cannot ask about is
   * left to the shards' informers, which check on the client too.
   */
  async #askServerShards(signal: AbortSignal): Promise<void> {
    const { client, logger, metrics, namespace } = this.#options;
    const key = this.#key();
    const kindOf = (type: ResourceType) => `${type.apiVersion}/${type.kind}`;
    const primaries = new Set(this.#declarations.map((d) => kindOf(d.primary.type)));
    for (const type of hashShardedKinds(key, this.#declarations)) {
      try {
        const applied = await serverAppliesShardSelectors(client, type, key, namespace, signal);
        this.#serverShards.set(kindOf(type), applied);
        const labelled = !applied && primaries.has(kindOf(type));
        metrics.clientFiltered(type.kind, !applied && !labelled);
        metrics.shardLabelled(type.kind, labelled);
        if (!applied) this.#sayUnsharded(type, labelled);
      } catch (err) {
        if (signal.aborted) return;
        logger.warn(
          { err, kind: type.kind },
          "sharding: could not ask whether the apiserver shards this kind; each shard's informer checks on the client",
        );
      }
    }
  }

  /** Says how this replica shards `type`, which the apiserver does not: by the shard label, or by filtering it whole. */
  #sayUnsharded(type: ResourceType, labelled: boolean): void {
    const { logger } = this.#options;
    const gate = "the apiserver's ShardedListAndWatch feature gate (Kubernetes 1.36+)";
    if (labelled) {
      logger.info(
        { kind: type.kind },
        `the apiserver ignores shard selectors for ${type.kind}: its objects are placed by the label ${SHARD_LABEL}, ` +
          `which the replicas set, and each replica watches its shards' label values (${gate} would spare the labels)`,
      );
    } else {
      logger.warn(
        { kind: type.kind },
        `the apiserver ignores shard selectors for ${type.kind}: this replica watches the whole kind once and each shard filters it; ` +
          `turn on ${gate} so that each replica receives only its shards`,
      );
    }
  }

  #key(): ShardKey {
    return this.#options.sharding.key ?? "namespace";
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
    const { client, controllerClient, logger, metrics } = this.#options;
    const key = this.#key();
    const stopped = new AbortController();
    const writes = new ShardWrites(client, this.#options.recorderOptions());
    const serverShards = (type: ResourceType) =>
      this.#serverShards.get(`${type.apiVersion}/${type.kind}`) ?? true;
    const place = shardPlacement(key, shard, this.#declarations, serverShards);
    const merging = this.#merger && { merger: this.#merger, shard };
    const cache = new ShardCache(
      client,
      this.#options.cacheOptions,
      this.#options.cache,
      place,
      stopped.signal,
      merging,
      (type, informer, labelOf, moving) =>
        labelShardObjects(writes.fenced(client), type, informer, labelOf, moving, (err, obj) => {
          metrics.shardLabelFailed(type.kind);
          logger.warn(
            { err, kind: type.kind, name: obj.metadata.name },
            "sharding: could not label an object",
          );
        }),
    );
    const running: RunningShard = { controllers: [], cache };
    const ends: (() => void)[] = [];
    const host: ControllerHost = {
      cache,
      addController: (spec) => {
        if (!runsOn(key, shard, spec.declaration)) return;
        const { name, primary } = spec.declaration;
        const controllerMetrics = metrics.controller(name);
        const built = this.#options.build(spec, {
          cache,
          metrics: controllerMetrics,
          recorder: writes.recorder,
          client: writes.fenced(controllerClient),
          accepts: shardAccepts(
            key,
            shard,
            cache.informer(primary.type, primary.scope),
            warnLostMappings(
              spec.declaration,
              place,
              (type) => cache.scopeFor(type),
              (message) => logger.warn({ controller: name }, message),
            ),
          ),
          // A namespaced owner's children are in its namespace: under either key, its bucket is theirs.
          childLabels:
            key === "uid" || primary.type.namespaced
              ? (owner) => ({ [SHARD_LABEL]: shardLabelValue(owner, key) })
              : undefined,
        });
        const untrack = metrics.trackQueue(name, built.queue);
        ends.push(untrack, () => controllerMetrics.maxConcurrent(0));
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
        const leading = shard.index === 0 ? [this.#options.runLeading(signal, writes.fenced(client))] : [];
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

  #holding(shard: HeldShard, running: RunningShard): void {
    const { logger, metrics } = this.#options;
    this.#shards.set(shard.index, running);
    metrics.shardsHeld.set({}, this.#shards.size);
    metrics.shardHandover("acquired", shard);
    logger.info({ shard: shard.index, unownedMs: shard.unownedMs }, "shard acquired");
  }

  #released(shard: HeldShard, lost: boolean): void {
    const { logger, metrics } = this.#options;
    this.#shards.delete(shard.index);
    metrics.shardsHeld.set({}, this.#shards.size);
    metrics.shardHandover(lost ? "lost" : "released");
    if (lost)
      logger.error({ shard: shard.index }, "shard lost: its writes were fenced and reconciles aborted");
    else logger.info({ shard: shard.index }, "shard released after its work drained");
  }
}
