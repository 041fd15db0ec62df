/**
 * The process-wide informer cache: one informer per kind and scope, shared by every controller,
 * plus cached reads for reconcilers. Informers requested after the cache started begin watching
 * at once.
 */
import type { KubeObject, ResourceType } from "../api/index.ts";
import type { Clock } from "../clock/index.ts";
import { shardSelector } from "../sharding/index.ts";
import type { WatchClient } from "../watch/index.ts";
import { type CacheSyncTimeoutError, InformerStoppedError, MissingInformerError } from "./errors.ts";
import type { InformerHealth } from "./health.ts";
import { Informer, type InformerMetrics, type InformerOptions, type InformerScope } from "./informer.ts";
import type { LabelSelectorMatcher } from "./labels.ts";
import type { DivergedObject, RelistOptions } from "./relist.ts";
import type { Indexer, StoreReader } from "./store.ts";

/** How the cache scopes and tunes the informers it creates. */
export interface InformerCacheOptions {
  /** Restrict every informer to this namespace (a namespace-scoped operator). */
  namespace?: string;
  /** Per-kind scope overrides, keyed by `apiVersion/kind`, e.g. `{ "v1/Secret": { metadataOnly: true } }`. */
  byKind?: Record<string, InformerScope>;
  /** Options applied to every informer (transform, watch tuning, periodic relist). */
  informer?: Pick<InformerOptions<KubeObject>, "transform" | "watch" | "relist">;
  /**
   * Per-kind relist overrides, keyed by `apiVersion/kind`, e.g. `{ "v1/Secret": false }` or
   * `{ "v1/Pod": { periodMs: 3_600_000 } }`; they replace `informer.relist` for that kind.
   */
  relistByKind?: Record<string, RelistOptions | false>;
  /** Watch and informer health hooks per kind. */
  metrics?: (type: ResourceType) => InformerMetrics;
  onError?: (err: unknown, context: string) => void;
  /** Told, per kind, of each relist that found objects the watch had missed (see {@link InformerOptions.onDiverged}). */
  onDiverged?: (type: ResourceType, found: readonly DivergedObject[]) => void;
  /**
   * How long {@link InformerCache.waitForSync} and {@link InformerCache.reader} wait for an
   * informer to sync before they reject with {@link CacheSyncTimeoutError}. Default 2 minutes,
   * as controller-runtime's `CacheSyncTimeout`.
   */
  syncTimeoutMs?: number;
  /** Told when a read starts an informer nobody declared, so unplanned cluster-wide caches are visible. */
  onLazyInformer?: (type: ResourceType, scope: InformerScope) => void;
  /**
   * Refuse a cached read ({@link InformerCache.reader}) of a kind no informer was made for, with
   * {@link MissingInformerError}, instead of starting one then: a read of an undeclared kind could
   * otherwise cache a whole cluster's objects unplanned. Off by default, as controller-runtime's
   * `ReaderFailOnMissingInformer`: a read of a kind declared only in the operator's `permissions`
   * starts its informer (the manager warns of one nothing declared at all), and code written
   * against that keeps working.
   */
  failOnMissingInformer?: boolean;
  clock?: Clock;
}

/** Cached reads of one kind. */
export interface CacheReader<T extends KubeObject> {
  get(name: string, namespace?: string): T | undefined;
  list(opts?: { namespace?: string; labelSelector?: string | LabelSelectorMatcher }): T[];
  byIndex(index: string, value: string): T[];
}

const defaultSyncTimeoutMs = 2 * 60_000;

/**
 * The key of an informer: kind plus scope, the same whatever the order of the scope's fields,
 * and with absent, empty and false fields left out (`{ namespace: "" }` is the cluster); a shard
 * by its selector, which names its merged ranges.
 */
function informerKey(type: ResourceType, { shard, ...scope }: InformerScope): string {
  const fields = Object.entries({ ...scope, shard: shard && shardSelector(shard.key, shard.ranges) })
    .filter(([, value]) => value !== undefined && value !== "" && value !== false)
    .sort(([a], [b]) => a.localeCompare(b));
  return `${type.apiVersion}/${type.kind}?${JSON.stringify(fields)}`;
}

/** Shared informers of one process. */
export class InformerCache {
  readonly #client: WatchClient;
  readonly #options: InformerCacheOptions;
  readonly #informers = new Map<string, Informer<KubeObject>>();
  #signal: AbortSignal | undefined;

  constructor(client: WatchClient, options: InformerCacheOptions = {}) {
    this.#client = client;
    this.#options = options;
  }

  /** The scope the cache uses for `type` unless told otherwise. */
  scopeFor(type: ResourceType): InformerScope {
    const override = this.#options.byKind?.[`${type.apiVersion}/${type.kind}`];
    // A per-kind override stays within the cache's namespace unless it names one itself ("": all).
    const namespace = type.namespaced ? this.#options.namespace : undefined;
    return { ...override, namespace: override?.namespace ?? namespace };
  }

  /** The shared informer of `type` in `scope` (default {@link InformerCache.scopeFor}), created on first request. */
  informer<T extends KubeObject>(
    type: ResourceType<T>,
    scope: InformerScope = this.scopeFor(type),
    indexers: Record<string, Indexer<T>> = {},
  ): Informer<T> {
    const key = informerKey(type, scope);
    let informer = this.#informers.get(key) as Informer<T> | undefined;
    if (!informer) {
      const kind = `${type.apiVersion}/${type.kind}`;
      informer = new Informer<T>(this.#client, type, {
        ...scope,
        ...(this.#options.informer as Pick<InformerOptions<T>, "transform" | "watch" | "relist">),
        relist: this.#options.relistByKind?.[kind] ?? this.#options.informer?.relist,
        metrics: this.#options.metrics?.(type),
        onError: this.#options.onError,
        onDiverged: (found) => this.#options.onDiverged?.(type, found),
        clock: this.#options.clock,
      });
      this.#informers.set(key, informer as unknown as Informer<KubeObject>);
      if (this.#signal) void informer.start(this.#signal);
    }
    for (const [name, indexer] of Object.entries(indexers)) informer.addIndexer(name, indexer);
    return informer;
  }

  /** The informer of `type` in `scope` if one was made and not removed, without making one. */
  existing<T extends KubeObject>(type: ResourceType<T>, scope: InformerScope): Informer<T> | undefined {
    return this.#informers.get(informerKey(type, scope)) as Informer<T> | undefined;
  }

  /**
   * Stops the informer of `type` in `scope` and forgets it, so that its objects can be freed (a
   * sharded controller drops the shards it released this way); resolves once it stopped. A later
   * request for the same scope starts a new informer. Nothing happens when there is none.
   */
  async remove(type: ResourceType, scope: InformerScope = this.scopeFor(type)): Promise<void> {
    const key = informerKey(type, scope);
    const informer = this.#informers.get(key);
    if (!informer) return;
    this.#informers.delete(key);
    await informer.stop();
  }

  /** Every informer created so far and not removed. */
  informers(): Informer<KubeObject>[] {
    return [...this.#informers.values()];
  }

  /** Starts every informer, now and as they are created, until `signal` aborts. */
  start(signal: AbortSignal): void {
    this.#signal = signal;
    for (const informer of this.#informers.values()) void informer.start(signal);
  }

  /**
   * Resolves once every informer created so far has synced, or been removed (a removed informer
   * is no longer the cache's to wait for). Rejects with the signal's reason when `signal` aborts
   * first, with {@link CacheSyncTimeoutError} (for the first informer found late) when one has not
   * synced within `syncTimeoutMs`, and with {@link InformerStoppedError} when one stopped unsynced.
   */
  async waitForSync(signal?: AbortSignal): Promise<void> {
    await Promise.all(
      this.informers().map((informer) =>
        informer.waitForSync(signal, this.syncTimeoutMs).catch((err: unknown) => {
          if (err instanceof InformerStoppedError && !this.informers().includes(informer)) return;
          throw err;
        }),
      ),
    );
  }

  /** True when every informer has synced. */
  get synced(): boolean {
    return this.informers().every((i) => i.synced);
  }

  /**
   * The health of every informer ({@link Informer.health}): `/readyz` wants each `synced`;
   * `/healthz` fails on one whose `state` has been `failing` for too long (`failingForMs`).
   */
  health(): InformerHealth[] {
    return this.informers().map((i) => i.health());
  }

  /** How long a read waits for an informer to sync ({@link InformerCacheOptions.syncTimeoutMs}). */
  get syncTimeoutMs(): number {
    return this.#options.syncTimeoutMs ?? defaultSyncTimeoutMs;
  }

  /**
   * Cached reads of `type`, starting (and waiting for) its informer when none exists yet —
   * reported through `onLazyInformer`, because such an informer may cache a whole cluster.
   * Rejects with the signal's reason when `signal` aborts before the informer synced, and with
   * {@link CacheSyncTimeoutError} after `syncTimeoutMs`: it never hands out an unsynced store.
   * With `failOnMissingInformer`, rejects with {@link MissingInformerError} instead of starting one.
   */
  async reader<T extends KubeObject>(type: ResourceType<T>, signal?: AbortSignal): Promise<CacheReader<T>> {
    const scope = this.scopeFor(type);
    const exists = this.#informers.has(informerKey(type, scope));
    if (!exists && this.#options.failOnMissingInformer) throw new MissingInformerError(type, scope.namespace);
    const informer = this.informer(type, scope);
    if (!exists) this.#options.onLazyInformer?.(type, scope);
    await informer.waitForSync(signal, this.syncTimeoutMs);
    return readerOf(type, informer.store);
  }
}

/** Cached reads of `type` from `store`, by name and namespace. */
export function readerOf<T extends KubeObject>(type: ResourceType<T>, store: StoreReader<T>): CacheReader<T> {
  return {
    get: (name, namespace) => store.get(type.namespaced && namespace ? `${namespace}/${name}` : name),
    list: (opts) => store.list(opts),
    byIndex: (index, value) => store.byIndex(index, value),
  };
}
