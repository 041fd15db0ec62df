/**
 * An informer: one watch of one kind and scope, kept in a store, fanned out to handlers.
 * User code it runs — indexers, the transform, handlers — cannot stop it: a failure is reported
 * (`onError`, `callbackError`) and the object goes on. Should its loop die anyway, it restarts
 * with backoff, and {@link Informer.health} says so.
 *
 * One class of 537 lines on purpose: the store, the handlers and the watch loop share one state
 * and read best in order; the watch itself lives in `kubeloop/watch`.
 */
import { type KubeObject, keyOf, type ObjectKey, type ResourceType } from "../api/index.ts";
import { ClientClosedError, type ObjectList } from "../client/index.ts";
import { type Clock, systemClock } from "../clock/index.ts";
import { type ShardFilter, shardFilter } from "../sharding/index.ts";
import {
  Backoff,
  type WatchClient,
  type WatcherOptions,
  type WatchMetrics,
  type WatchShard,
  watch,
} from "../watch/index.ts";
import { CostedWriter, estimateBytes } from "./cost.ts";
import { CacheSyncTimeoutError, InformerStoppedError } from "./errors.ts";
import { HealthTracker, type InformerHealth } from "./health.ts";
import { internStrings } from "./intern.ts";
import { type Divergence, Relister } from "./internal/relist.ts";
import { childController } from "./internal/shared-abort.ts";
import { SyncWaiters } from "./internal/sync-waiters.ts";
import {
  type Change,
  reflect,
  stripManagedFields,
  summarizeManagedFields,
  type Transform,
} from "./reflector.ts";
import type { DivergedObject, DivergenceKind, RelistOptions } from "./relist.ts";
import { createStore, type Indexer, type StoreReader } from "./store.ts";

const tombstoneTtlMs = 10 * 60_000;
const maxTombstones = 1000;

/** What an informer watches: a kind, optionally narrowed. */
export interface InformerScope {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Watch and store only metadata. */
  metadataOnly?: boolean;
  /**
   * Only the objects of these hash ranges (a sharded controller's part of the kind): asked of the
   * server with a shard selector and checked on the client, in the watch and in relists alike.
   */
  shard?: WatchShard;
}

/** Callbacks for store changes. `initial` is true for objects of the first list. */
export interface InformerHandler<T extends KubeObject> {
  onAdd?(obj: T, initial: boolean): void;
  /**
   * An object changed, or — after every relist (a 410, a restart) — was listed again, unchanged
   * or not: as client-go's informers do, a relist re-delivers each object still present as an
   * update, so that a missed event is repaired. Filter with predicates (e.g. `generationChanged`).
   */
  onUpdate?(old: T, obj: T): void;
  onDelete?(obj: T): void;
  /**
   * The store now shows every change of the scope up to `resourceVersion`
   * ({@link Informer.lastSyncResourceVersion}): after each (re)list, after each event and
   * bookmark of the watch. Called for every event: keep it cheap.
   */
  onProgress?(resourceVersion: string): void;
}

/** User code an informer runs, as {@link InformerMetrics.callbackError} names it. */
export type InformerCallback = "indexer" | "transform" | "handler";

/** Watch health hooks plus the informer's own; the manager binds them to metrics. All optional. */
export interface InformerMetrics extends WatchMetrics {
  /** User code threw (`kubeloop_informer_callback_errors_total{kind,callback}`); the informer went on. */
  callbackError?(callback: InformerCallback): void;
  /** The informer's loop died unexpectedly; it restarts after `delayMs`. */
  restart?(error: unknown, delayMs: number): void;
  /** A periodic relist found an object the watch missed, and repaired it (`kubeloop_cache_divergence_total{kind,change}`). */
  diverged?(change: DivergenceKind): void;
  /**
   * The estimated heap bytes of its store ({@link Informer.bytes}), after each write; 0 once it
   * stopped (its store is nobody's cache any more). Called often: keep it cheap.
   */
  storeBytes?(bytes: number): void;
}

/** Options of an {@link Informer}. */
export interface InformerOptions<T extends KubeObject> extends InformerScope {
  /**
   * Rewrites objects before they are stored. Default: drop `managedFields` (or keep a summary for
   * owned kinds) and share repeated strings and metadata records ({@link internStrings}: stored
   * objects may share their labels, annotations and owner references, so never mutate them).
   * Pass `(o) => o` to keep everything.
   * An object it throws on is stored untransformed (and the failure reported).
   */
  transform?: Transform<T>;
  /** Extra indexes for {@link StoreReader.byIndex}. An object an indexer throws on is left out of that index. */
  indexers?: Record<string, Indexer<T>>;
  /** Watch tuning (inactivity, gaps, backoff, initial state). The backoff also paces restarts. */
  watch?: Pick<
    WatcherOptions,
    "inactivityMs" | "gapMs" | "backoff" | "initialState" | "pageSize" | "timeoutSeconds"
  >;
  /**
   * The periodic relist that heals the store (see {@link Informer}). Default every 4 min ± 10 %;
   * `false` or a `periodMs` of 0 turns it off.
   */
  relist?: RelistOptions | false;
  /** Called with failures of user code, of the watch and of the informer itself. */
  onError?: (err: unknown, context: string) => void;
  /** Called once per relist that found differences, with every object it repaired (after repairing them). */
  onDiverged?: (found: readonly DivergedObject[]) => void;
  metrics?: InformerMetrics;
  clock?: Clock;
}

/**
 * A running watch of one kind and scope, with a store and handlers.
 *
 * After every relist of the watch (the first list, a `410 Expired`, a restart) handlers see an
 * `onAdd` for each new object, an `onUpdate` for every object still present — changed or not, as
 * client-go's `Replace` re-delivers the list — and an `onDelete` for each object that vanished
 * meanwhile.
 *
 * Besides, every `relist.periodMs` (4 min ± 10 % by default) it lists its scope with a consistent
 * read, in pages, and — once the watch has caught up to the list's resourceVersion (waiting up to
 * 90 s for an event or bookmark at or past it) — compares the list with the store by uid and
 * resourceVersion. Where the watch missed something, it repairs the store and hands the handlers
 * exactly the differences — `onAdd`, `onUpdate`, `onDelete` — counting each in
 * `metrics.diverged`; where they agree, nobody hears of it. Only what the watch has passed is
 * judged, so an event still on its way is never counted as missed; objects the watch wrote after
 * the list's resourceVersion are newer than the list and kept. A failed relist is retried with
 * backoff.
 */
export class Informer<T extends KubeObject> {
  /** What is watched. */
  readonly type: ResourceType<T>;
  readonly scope: InformerScope;
  /** The store; read-only for everyone but the informer. */
  readonly store: StoreReader<T>;
  readonly #writer: { reader: StoreReader<T>; writer: CostedWriter<T> };
  readonly #options: InformerOptions<T>;
  readonly #handlers = new Set<InformerHandler<T>>();
  readonly #clock: Clock;
  readonly #health: HealthTracker;
  readonly #syncWaiters: SyncWaiters;
  #synced = false;
  #lastEventAt: number | undefined;
  #running: Promise<void> | undefined;
  /** Aborts this informer's own run (see {@link stop}); set while it runs. */
  #controller: AbortController | undefined;
  #stopped = false;
  /** Its run ended (stopped, or its signal aborted): it syncs no more. */
  #ended = false;
  /** The scope's shard as the relists ask for it and check it (the watch has its own). */
  readonly #shard: ShardFilter;
  #retainWriters = false;
  readonly #tombstones = new Map<string, { object: T; at: number }>();
  readonly #relister: Relister<T>;
  #lastSyncResourceVersion: string | undefined;

  constructor(
    private readonly client: WatchClient,
    type: ResourceType<T>,
    options: InformerOptions<T> = {},
  ) {
    this.type = type;
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#health = new HealthTracker(`${type.apiVersion}/${type.kind}`, this.#clock);
    this.#syncWaiters = new SyncWaiters(this.#clock);
    const { namespace, labelSelector, fieldSelector, metadataOnly, shard } = options;
    this.scope = { namespace, labelSelector, fieldSelector, metadataOnly, ...(shard ? { shard } : {}) };
    this.#shard = shardFilter(shard, () => options.metrics?.outsideShard?.());
    const store = createStore<T>(options.indexers, (err, index, key) =>
      this.#callbackFailed(
        "indexer",
        err,
        `indexer "${index}" failed on ${key}; it is stored outside that index`,
      ),
    );
    this.store = store.reader;
    // The default transform shares repeated strings: the estimate counts them once.
    const interned = !options.transform;
    const writer = new CostedWriter(
      store.writer,
      (obj) => estimateBytes(obj, interned),
      (bytes) => options.metrics?.storeBytes?.(bytes),
    );
    this.#writer = { reader: store.reader, writer };
    this.#relister = this.#makeRelister();
  }

  /** True once the first list has been stored. */
  get synced(): boolean {
    return this.#synced;
  }

  /**
   * The resourceVersion up to which the store shows every change of its scope, as client-go's
   * `LastSyncResourceVersion`: the last (re)list's, then each event's and bookmark's once handled;
   * undefined before the first list. An object the store lacks was, at this resourceVersion, gone.
   */
  get lastSyncResourceVersion(): string | undefined {
    return this.#lastSyncResourceVersion;
  }

  /** Milliseconds since the last change arrived, or undefined before any. */
  get msSinceLastEvent(): number | undefined {
    return this.#lastEventAt === undefined ? undefined : this.#clock.monotonicMs() - this.#lastEventAt;
  }

  /**
   * The estimated heap bytes its store holds (`kubeloop_cache_bytes{kind}`): kept up to date as
   * objects are written, from each object's shape ({@link estimateBytes}), within ±20 % of the
   * measured heap (`bench/cache-memory.ts`).
   */
  get bytes(): number {
    return this.#writer.writer.bytes;
  }

  /** Its state, last failure and restarts, for health checks. */
  health(): InformerHealth {
    return this.#health.snapshot(this.#synced);
  }

  /**
   * Resolves once the first list has been stored. Rejects with the signal's reason (an
   * `AbortError` unless it was aborted with another) when `signal` aborts first, and with
   * {@link CacheSyncTimeoutError} (naming the last list or watch failure) after `timeoutMs`:
   * it never resolves while the store is still empty for want of a sync. Rejects with
   * {@link InformerStoppedError} once the informer stopped unsynced: it would never sync.
   */
  waitForSync(signal?: AbortSignal, timeoutMs = Number.POSITIVE_INFINITY): Promise<void> {
    if (this.#synced) return Promise.resolve();
    if (this.#ended) return Promise.reject(this.#stoppedError());
    return this.#syncWaiters.wait(
      signal,
      timeoutMs,
      () => new CacheSyncTimeoutError(this.type, this.scope.namespace, timeoutMs, this.#health.lastError),
    );
  }

  /**
   * Registers a handler. When the informer has already synced, the handler first receives an
   * `onAdd(obj, true)` for every stored object, so late subscribers see the full state — unless
   * `replay` is false, for a handler moved from another informer that already told it that state.
   * Returns a function that unregisters it.
   */
  addHandler(handler: InformerHandler<T>, { replay = true }: { replay?: boolean } = {}): () => void {
    this.#handlers.add(handler);
    if (this.#synced && replay)
      for (const obj of this.store.list()) this.#call(handler, { type: "add", object: obj, initial: true });
    return () => this.#handlers.delete(handler);
  }

  /**
   * Keeps a summary of `managedFields` (who wrote each object, and how) instead of dropping it,
   * for objects stored from now on. Owned kinds ask for it so drift can be attributed. Has no
   * effect when a custom transform was given.
   */
  retainWriters(): void {
    this.#retainWriters = true;
  }

  /** The last state of an object deleted within the last 10 minutes, for attributing the deletion. */
  tombstone(key: string): T | undefined {
    const entry = this.#tombstones.get(key);
    return entry && this.#clock.monotonicMs() - entry.at < tombstoneTtlMs ? entry.object : undefined;
  }

  /** Adds an index to the store (a name already present is kept). */
  addIndexer(name: string, indexer: Indexer<T>): void {
    this.#writer.writer.addIndexer(name, indexer);
  }

  /**
   * Starts watching (once); runs until `signal` aborts. The informer follows `signal` through a
   * controller of its own, so any number of informers may share one signal.
   */
  start(signal: AbortSignal): Promise<void> {
    if (this.#stopped) return this.#running ?? Promise.resolve();
    this.#running ??= this.#runUntil(signal);
    return this.#running;
  }

  /**
   * Stops it for good, whatever signal it was started with, and resolves once its watch and relists
   * ended (at once if it never started). Its store stays readable as it was.
   */
  stop(): Promise<void> {
    this.#stopped = true;
    this.#options.metrics?.storeBytes?.(0);
    this.#controller?.abort(new Error(`the ${this.type.kind} informer was stopped`));
    if (!this.#running) this.#end();
    return this.#running ?? Promise.resolve();
  }

  /** No sync comes any more: waiters are told so at once. */
  #end(): void {
    this.#ended = true;
    if (!this.#synced) this.#syncWaiters.rejectAll(this.#stoppedError());
  }

  #stoppedError(): InformerStoppedError {
    return new InformerStoppedError(this.type, this.scope.namespace);
  }

  async #runUntil(parent: AbortSignal): Promise<void> {
    const { controller, release } = childController(parent);
    this.#controller = controller;
    this.#health.started();
    try {
      await Promise.all([this.#run(controller.signal), this.#relister.run(controller.signal)]);
    } finally {
      release();
      this.#health.stopped();
      this.#end();
    }
  }

  /** Follows the watch; restarts it with backoff whenever it dies before `signal` aborts. */
  async #run(signal: AbortSignal): Promise<void> {
    const backoff = new Backoff(this.#options.watch?.backoff?.initialMs, this.#options.watch?.backoff?.maxMs);
    while (!signal.aborted) {
      try {
        await this.#follow(signal, backoff);
        if (!signal.aborted) throw new Error("the watch ended although the informer was not stopped");
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof ClientClosedError) return this.#closedUnder(err);
        const delayMs = backoff.next();
        this.#health.failed(err, true);
        this.#options.metrics?.restart?.(err, delayMs);
        this.#report(err, `informer ${this.type.kind} died; restarting in ${Math.round(delayMs)} ms`);
        await this.#clock.sleep(delayMs, signal).catch(() => {});
      }
    }
  }

  /** Its client was closed under it: stops (the relist too), unhealthy, saying why; never restarts. */
  #closedUnder(err: ClientClosedError): void {
    this.#health.failed(err);
    this.#report(err, `informer ${this.type.kind} stopped: its client was closed while it ran`);
    this.#controller?.abort();
  }

  async #follow(signal: AbortSignal, backoff: Backoff): Promise<void> {
    const events = watch(this.client, this.type, {
      ...this.scope,
      ...this.#options.watch,
      metrics: this.#watchMetrics(),
      onProgress: (resourceVersion) => this.#progressed(resourceVersion),
      clock: this.#options.clock,
      signal,
    });
    for await (const change of reflect(this.#writer, events, this.#transform())) {
      this.#lastEventAt = this.#clock.monotonicMs();
      this.#health.recovered();
      if (change.type === "synced") {
        backoff.reset();
        this.#markSynced();
      } else {
        if (change.type === "delete") {
          this.#bury(change.object);
          this.#relister.deletedByWatch(keyOf(change.object));
        }
        this.#dispatch(change);
      }
    }
  }

  /**
   * The transform in force, made safe: an object it throws on is stored untransformed, and the
   * failure logged and counted. client-go instead fails the whole Add or Replace and relists,
   * which never ends for an object the transform always rejects: the informer would freeze.
   */
  #transform(): Transform<T> {
    const intern = internStrings<T>();
    const transform =
      this.#options.transform ??
      ((obj: T) => intern((this.#retainWriters ? summarizeManagedFields : stripManagedFields)(obj)));
    return (obj) => {
      try {
        const result = transform(obj);
        if (result?.metadata) return result;
        throw new TypeError(`the transform returned ${String(result)} instead of an object`);
      } catch (err) {
        this.#callbackFailed(
          "transform",
          err,
          `transform failed on ${describe(obj)}; it is stored untransformed`,
        );
        return obj;
      }
    };
  }

  #makeRelister(): Relister<T> {
    const { watch, relist } = this.#options;
    const target = {
      store: this.store,
      // No resourceVersion: a quorum read, as fresh as etcd. A list from the watch cache
      // (resourceVersion "0") may be as far behind as the watch that missed the events.
      listPage: (token: string | undefined, signal: AbortSignal) => this.#relistPage(token, signal),
      waitForSync: (signal: AbortSignal) => this.waitForSync(signal),
      heal: (found: Divergence<T>[]) => this.#heal(found),
      failed: (err: unknown, retryInMs: number) =>
        this.#report(err, `relist of ${this.type.kind} failed; retrying in ${Math.round(retryInMs)} ms`),
    };
    const backoff = new Backoff(watch?.backoff?.initialMs, watch?.backoff?.maxMs);
    return new Relister(target, relist, this.#clock, backoff);
  }

  /** One page of the relist's list of the scope: a shard's objects only, as the watch delivers them. */
  async #relistPage(token: string | undefined, signal: AbortSignal): Promise<ObjectList<T>> {
    const { shard: _, ...scope } = this.scope;
    const page = await this.client.listPage(this.type, {
      ...scope,
      shardSelector: this.#shard.selector,
      limit: this.#options.watch?.pageSize ?? 500,
      continue: token,
      signal,
    });
    return { ...page, items: page.items.filter((obj) => this.#shard.keeps(obj)) };
  }

  /** Applies what a relist found the watch missed to the store, counting each, and tells the handlers. */
  #heal(found: Divergence<T>[]): void {
    const transform = this.#transform();
    for (const { change, object } of found) {
      this.#options.metrics?.diverged?.(change);
      if (change === "deleted") {
        const old = this.#writer.writer.delete(object) ?? object;
        this.#bury(old);
        this.#dispatch({ type: "delete", object: old });
      } else {
        const fresh = transform(object);
        const old = this.#writer.writer.apply(fresh);
        this.#dispatch(
          old ? { type: "update", old, object: fresh } : { type: "add", object: fresh, initial: false },
        );
      }
    }
    if (found.length === 0) return;
    const diverged = found.map(({ change, object }) => ({ change, key: describe(object) }));
    this.#tell(() => this.#options.onDiverged?.(diverged));
  }

  #watchMetrics(): WatchMetrics {
    const metrics = this.#options.metrics;
    return {
      ...metrics,
      event: (type) => {
        this.#health.recovered();
        metrics?.event?.(type);
      },
      retry: (err, delayMs) => {
        this.#health.failed(err);
        metrics?.retry?.(err, delayMs);
        this.#report(err, `watch of ${this.type.kind} failed; retrying in ${Math.round(delayMs)} ms`);
      },
    };
  }

  #bury(object: T): void {
    const now = this.#clock.monotonicMs();
    for (const [key, entry] of this.#tombstones) {
      if (now - entry.at >= tombstoneTtlMs || this.#tombstones.size >= maxTombstones)
        this.#tombstones.delete(key);
      else break;
    }
    this.#tombstones.set(keyOf(object), { object, at: now });
  }

  /** The watch caught up to `resourceVersion`, every change before it handled: the relist and handlers are told. */
  #progressed(resourceVersion: string): void {
    this.#lastSyncResourceVersion = resourceVersion;
    this.#relister.progressed(resourceVersion);
    for (const handler of this.#handlers) {
      try {
        handler.onProgress?.(resourceVersion);
      } catch (err) {
        this.#callbackFailed("handler", err, `handler failed on progress to ${resourceVersion}`);
      }
    }
  }

  #markSynced(): void {
    if (this.#synced) return;
    this.#synced = true;
    this.#syncWaiters.releaseAll();
  }

  /** Hands a change to every handler; adds of a relist after the first sync are not `initial`. */
  #dispatch(change: Exclude<Change<T>, { type: "synced" }>): void {
    const delivered = change.type === "add" && this.#synced ? { ...change, initial: false } : change;
    for (const handler of this.#handlers) this.#call(handler, delivered);
  }

  #call(handler: InformerHandler<T>, change: Exclude<Change<T>, { type: "synced" }>): void {
    try {
      if (change.type === "add") handler.onAdd?.(change.object, change.initial);
      else if (change.type === "update") handler.onUpdate?.(change.old, change.object);
      else handler.onDelete?.(change.object);
    } catch (err) {
      this.#callbackFailed("handler", err, `handler failed on ${change.type} of ${describe(change.object)}`);
    }
  }

  #callbackFailed(callback: InformerCallback, err: unknown, what: string): void {
    this.#options.metrics?.callbackError?.(callback);
    this.#report(err, `${this.type.kind} ${what}`);
  }

  /** Reports through `onError`. */
  #report(err: unknown, context: string): void {
    this.#tell(() => this.#options.onError?.(err, context));
  }

  /** Calls a reporting hook; one that throws must not take the informer down with it. */
  #tell(hook: () => void): void {
    try {
      hook();
    } catch {
      // Nowhere left to report to; the informer goes on.
    }
  }
}

/** The object's key, for messages; never throws, even for an object without metadata. */
function describe(obj: KubeObject): ObjectKey {
  return obj?.metadata ? keyOf(obj) : "(an object without metadata)";
}
