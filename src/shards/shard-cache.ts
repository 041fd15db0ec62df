/**
 * The cache a sharded manager gives each virtual shard it holds: the shard's own informers of the
 * kinds it narrows, and views of the manager's shared informers of the others, as
 * `shardPlacement` places each kind.
 */
import type { KubeObject, ResourceType } from "../api/index.ts";
import {
  type CacheReader,
  type Indexer,
  type Informer,
  InformerCache,
  type InformerCacheOptions,
  type InformerScope,
  readerOf,
} from "../cache/index.ts";
import type { Clock } from "../clock/index.ts";
import type { WatchClient } from "../watch/index.ts";
import type { HeldShard } from "./coordinator.ts";
import { OutsideShardReadError } from "./errors.ts";
import { joinInformers } from "./joined-informers.ts";
import type { Placement, ShardLabelling } from "./placement.ts";
import { MovableView, type Route, routeId, type WatchMerger } from "./watch-merger.ts";

/**
 * Labels, while the shard runs, the objects of `informer` (the shard's unlabelled ones of `type`)
 * with the shard label `labelOf(obj)`, each key in `moving` while its label is written
 * (`labelShardObjects`); returns what stops it.
 */
export type LabelObjects = (
  type: ResourceType,
  informer: Informer<KubeObject>,
  labelOf: (obj: KubeObject) => string,
  moving: Set<string>,
) => () => void;

/** How a shard's cache joins the replica's merged watches ({@link WatchMerger}). */
export interface ShardMerging {
  readonly merger: WatchMerger;
  readonly shard: HeldShard;
}

/**
 * The cache of one held shard: informers of the kinds the shard narrows on the server are its own
 * (started, synced and stopped with the shard), until the replica merges them into one watch of
 * all its shards (`merging`); the others are the manager's shared ones, seen through the shard's
 * filter where it has one. It is synced once its own informers and the shared ones it hands out
 * are. Handlers the shard adds to informers it does not own are removed when `stopped` aborts.
 */
export class ShardCache extends InformerCache {
  readonly #shared: InformerCache;
  readonly #place: Placement;
  readonly #merging: ShardMerging | undefined;
  readonly #label: LabelObjects | undefined;
  readonly #clock: Clock | undefined;
  /** Told of a handler that threw while a view moved: the cache's own error hook. */
  readonly #onError: (err: unknown) => void;
  /** The shard's views of the kinds it narrows, by kind and route. */
  readonly #views = new Map<string, MovableView<KubeObject>>();
  /** The shard's informers joined with the shared informer of what their route cannot place, by kind and route. */
  readonly #joined = new Map<string, Informer<KubeObject>>();
  /** The shared informers the shard reads: it waits for them to sync as for its own. */
  readonly #sharedUsed = new Set<Informer<KubeObject>>();
  /** What closes the shard's views and takes them out of the merger, when it stops. */
  readonly #closing: (() => void)[] = [];

  constructor(
    client: WatchClient,
    options: InformerCacheOptions,
    shared: InformerCache,
    place: Placement,
    stopped: AbortSignal,
    merging?: ShardMerging,
    label?: LabelObjects,
  ) {
    super(client, options);
    this.#shared = shared;
    this.#place = place;
    this.#merging = merging;
    this.#label = label;
    this.#clock = options.clock;
    this.#onError = (err) => options.onError?.(err, "a shard's handler, told what changed as its view moved");
    // One listener for all the shard's views (a listener each would pass Node's limit of 10).
    stopped.addEventListener("abort", () => this.#closeViews(), { once: true });
  }

  #closeViews(): void {
    for (const close of this.#closing) close();
  }

  /** The scope of `type`, narrowed to the shard where the shard's own informer serves it. */
  override scopeFor(type: ResourceType): InformerScope {
    const scope = super.scopeFor(type);
    const placed = this.#place(type, scope);
    return placed && "scope" in placed ? placed.scope : scope;
  }

  /** Resolves once the shard's own informers, and the shared ones it reads, have synced. */
  override async waitForSync(signal?: AbortSignal): Promise<void> {
    const shared = [...this.#sharedUsed].map((i) => i.waitForSync(signal, this.syncTimeoutMs));
    await Promise.all([super.waitForSync(signal), ...shared]);
  }

  /** True when the shard's own informers, and the shared ones it reads, have synced. */
  override get synced(): boolean {
    return super.synced && [...this.#sharedUsed].every((i) => i.synced);
  }

  /**
   * Cached reads: of the shard's informer, or the shared one's, filtered to the shard where the
   * shard has a filter. Under the namespace key, a read of a namespace outside the shard (a `get`
   * or a `list` naming it) goes to an informer holding that namespace whole — the shared one of
   * the kind, or one of that namespace alone (`watches(Kind, map, { scope: { namespace } })`) —
   * and throws {@link OutsideShardReadError} where there is none, rather than answer "not found".
   */
  override async reader<T extends KubeObject>(
    type: ResourceType<T>,
    signal?: AbortSignal,
  ): Promise<CacheReader<T>> {
    const placed = this.#place(type, super.scopeFor(type));
    if (placed && "scope" in placed) {
      const informer = this.informer(type, placed.scope);
      await informer.waitForSync(signal, this.syncTimeoutMs);
      const mine = readerOf(type, informer.store);
      return placed.holds
        ? routedByNamespace(mine, placed.holds, (ns) => this.#wholeReader(type, placed, ns))
        : mine;
    }
    const reader = await this.#shared.reader(type, signal);
    if (!placed) return reader;
    const keep = (obj: T | undefined) => (obj && placed.filter(obj) ? obj : undefined);
    const mine: CacheReader<T> = {
      get: (name, namespace) => keep(reader.get(name, namespace)),
      list: (opts) => reader.list(opts).filter(placed.filter),
      byIndex: (index, value) => reader.byIndex(index, value).filter(placed.filter),
    };
    return placed.holds ? routedByNamespace(mine, placed.holds, () => reader) : mine;
  }

  /** Reads of `namespace`, outside the shard, from the shared informer holding it whole, if one synced. */
  #wholeReader<T extends KubeObject>(
    type: ResourceType<T>,
    { route }: { route: Route },
    namespace: string,
  ): CacheReader<T> {
    const informer = this.#shared.existing(type, { ...route.base, namespace });
    if (!informer?.synced) throw new OutsideShardReadError(type, namespace);
    return readerOf(type, informer.store);
  }

  /** The informer of `type` in `scope`: the shard's own, or the shared one seen from the shard. */
  override informer<T extends KubeObject>(
    type: ResourceType<T>,
    scope: InformerScope = this.scopeFor(type),
    indexers = {},
  ): Informer<T> {
    const placed = this.#place(type, scope);
    if (!placed || !("scope" in placed)) return this.#sharedView(type, scope, indexers, placed?.filter);
    const own = this.#merging
      ? (this.#view(type, placed, indexers).informer as unknown as Informer<T>)
      : super.informer(type, placed.scope, indexers);
    return placed.unrouted ? this.#join(type, placed, own, indexers) : own;
  }

  /** The shared informer of `type` in `scope`, seen through `filter`; its handlers go when the shard stops. */
  #sharedView<T extends KubeObject>(
    type: ResourceType<T>,
    scope: InformerScope,
    indexers: Record<string, Indexer<T>>,
    filter?: (obj: KubeObject) => boolean,
  ): Informer<T> {
    const source = this.#shared.informer(type, scope, indexers);
    this.#sharedUsed.add(source as unknown as Informer<KubeObject>);
    const view = new MovableView(source, this.#onError, filter);
    this.#closing.push(() => view.close());
    return view.informer;
  }

  /**
   * `own` joined, once per kind and route, with the shared informer of the objects its route cannot
   * place: those of them the shard labels (`labels`) only, labelled as they come, each kept in the
   * join from leaving the unlabelled watch until it arrives in `own`.
   */
  #join<T extends KubeObject>(
    type: ResourceType<T>,
    { route, unrouted, labels }: { route: Route; unrouted?: InformerScope; labels?: ShardLabelling },
    own: Informer<T>,
    indexers: Record<string, Indexer<T>>,
  ): Informer<T> {
    const id = routeId(type, route);
    const existing = this.#joined.get(id) as Informer<T> | undefined;
    if (existing) {
      for (const [name, indexer] of Object.entries(indexers)) existing.addIndexer(name, indexer);
      return existing;
    }
    const unlabelled = this.#sharedView(type, unrouted ?? {}, indexers, labels?.keeps);
    const moves = { keys: new Set<string>(), clock: this.#clock };
    if (labels && this.#label) {
      const objects = unlabelled as unknown as Informer<KubeObject>;
      this.#closing.push(this.#label(type, objects, labels.value, moves.keys));
    }
    const joined = joinInformers(own, unlabelled, labels && moves);
    this.#joined.set(id, joined as unknown as Informer<KubeObject>);
    return joined;
  }

  /** The shard's view of `type` placed at its own scope, made and attached to the merger once. */
  #view<T extends KubeObject>(
    type: ResourceType<T>,
    { scope: own, route }: { scope: InformerScope; route: Route },
    indexers: Record<string, Indexer<T>>,
  ): MovableView<KubeObject> {
    const { merger, shard } = this.#merging as ShardMerging;
    const id = routeId(type, route);
    const existing = this.#views.get(id);
    if (existing) {
      for (const [name, indexer] of Object.entries(indexers))
        existing.informer.addIndexer(name, indexer as Indexer<KubeObject>);
      return existing;
    }
    const source = super.informer(type, own, indexers) as unknown as Informer<KubeObject>;
    const view = new MovableView(source, this.#onError);
    this.#views.set(id, view);
    const detach = merger.attach(type, route, { shard, view, own: { cache: this, scope: own } });
    this.#closing.push(() => {
      view.close();
      detach();
    });
    return view;
  }
}

/** `mine`, whose reads naming a namespace the shard does not hold go to `elsewhere(namespace)`. */
function routedByNamespace<T extends KubeObject>(
  mine: CacheReader<T>,
  holds: (namespace: string) => boolean,
  elsewhere: (namespace: string) => CacheReader<T>,
): CacheReader<T> {
  const readerFor = (namespace: string | undefined) =>
    namespace === undefined || holds(namespace) ? mine : elsewhere(namespace);
  return {
    get: (name, namespace) => readerFor(namespace).get(name, namespace),
    list: (opts) => readerFor(opts?.namespace).list(opts),
    byIndex: (index, value) => mine.byIndex(index, value),
  };
}
