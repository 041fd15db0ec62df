/**
 * What a sharded manager runs on each virtual shard it holds: the operator's `setup` on a cache of
 * that shard alone ({@link ShardCache}), so that its informers ask the apiserver for the shard's
 * objects only and are dropped, with their memory, when the shard is given up. Where an object
 * belongs is the {@link ShardingOptions.key}'s choice; {@link shardPlacement} applies it per kind.
 */
import { type KubeObject, parseKey, type ResourceType } from "../api/index.ts";
import {
  type CacheReader,
  type Indexer,
  type Informer,
  InformerCache,
  type InformerCacheOptions,
  type InformerScope,
  readerOf,
} from "../cache/index.ts";
import type { Client } from "../client/index.ts";
import type { ControllerDeclaration } from "../controller/index.ts";
import type { ElectionTimings } from "../election/index.ts";
import {
  type HeldShard,
  hashSpace,
  inRanges,
  inShard,
  type ShardKey,
  shardHash,
  shardSelector,
} from "../sharding/index.ts";
import type { WatchClient } from "../watch/index.ts";
import { MovableView, type Route, routeId, type WatchMerger } from "./merged.ts";

/** The label a manager sharded by uid puts on children: the index of their owner's shard. */
export const SHARD_LABEL = "kubeloop.dev/shard";

/**
 * Sharding of a manager's controllers across its replicas: the hash space is split into
 * `shards` virtual shards, each held by one replica at a time through a Lease
 * (`kubeloop/sharding`'s `ShardCoordinator`), and a replica reconciles the objects of the shards it
 * holds, watching only those.
 */
export interface ShardingOptions extends Partial<ElectionTimings> {
  /**
   * What places an object in a shard.
   *
   * - `"namespace"` (default): the hash of its namespace. A namespace's objects — the primary
   *   objects, their children and the inputs watched there — go to one replica together, and
   *   every namespaced informer is sharded on the server. Objects spread only as far as
   *   namespaces do: one namespace is one shard. A controller of a cluster-scoped kind runs on
   *   the holder of shard 0.
   * - `"uid"`: the hash of the primary object's uid, spreading the objects of one namespace.
   *   Children are labelled `kubeloop.dev/shard` with their owner's shard by `ensureChild` and
   *   watched by that label; other watched kinds are cached whole by every replica, and the keys
   *   they map to are kept only for primary objects of the replica's shards.
   */
  key?: ShardKey;
  /** How many virtual shards the hash space is split into; every replica must agree. Default 32. */
  shards?: number;
  /** Prefix of the Leases (`<name>-shard-<i>`, `<name>-member-<hash of the identity>`). Default: the manager's name. */
  name?: string;
  /** Namespace of the Leases. Default: the client's default namespace (the pod's). */
  namespace?: string;
  /** This replica's identity. Default: `$POD_NAME_$POD_UID` when set, else host name and a random suffix. */
  identity?: string;
}

/**
 * Where a shard's informer of a kind comes from: its own, narrowed to the shard (`scope`), which
 * the replica merges with its other shards' along `route`; the manager's shared informer of the
 * whole kind seen through the shard's `filter` (where the apiserver ignores the shard selector, so
 * that the replica receives the kind once, not once per shard); or, `undefined`, the shared
 * informer, whole.
 */
export type Placed =
  | { readonly scope: InformerScope; readonly route: Route }
  | { readonly filter: (obj: KubeObject) => boolean }
  | undefined;

/** The {@link Route} of objects by the hash of their `key` field, within `base`. */
export function hashRoute(key: ShardKey, base: InformerScope): Route {
  return {
    by: key,
    base,
    scopeOf: (shards) => ({ ...base, shard: { key, ranges: shards.map((s) => s.range) } }),
    keeps: (shard) => (obj) => inShard(obj, key, [shard.range]),
  };
}

/** The {@link Route} of children by the shard label their owner's shard gave them, within `base`. */
export function labelRoute(base: InformerScope): Route {
  const selectors = base.labelSelector ? [base.labelSelector] : [];
  return {
    by: SHARD_LABEL,
    base,
    scopeOf: (shards) => {
      const indexes = shards.map((s) => s.index).sort((a, b) => a - b);
      const shardLabel =
        indexes.length === 1 ? `${SHARD_LABEL}=${indexes[0]}` : `${SHARD_LABEL} in (${indexes.join(",")})`;
      return { ...base, labelSelector: [...selectors, shardLabel].join(",") };
    },
    keeps: (shard) => (obj) => obj.metadata.labels?.[SHARD_LABEL] === String(shard.index),
  };
}

/** Where each informer of one shard comes from ({@link Placed}). */
export type Placement = (type: ResourceType, scope: InformerScope) => Placed;

/**
 * The {@link Placement} of `shard` under `key`, for controllers that declared `declarations`;
 * `serverShards` tells whether the apiserver applies shard selectors to a kind. Under the uid key
 * a kind is narrowed only where every controller uses it alike: only as a primary kind (by uid),
 * or only as an owned kind (by the shard label, which every apiserver applies); a kind also
 * watched, or read without a declaration, is cached whole, as the maps and reads over it may need
 * any object.
 */
export function shardPlacement(
  key: ShardKey,
  shard: HeldShard,
  declarations: readonly ControllerDeclaration[],
  serverShards: (type: ResourceType) => boolean,
): Placement {
  const byHash = (type: ResourceType, { shard: _, ...base }: InformerScope): Placed => {
    if (!serverShards(type)) return { filter: (obj) => inShard(obj, key, [shard.range]) };
    const route = hashRoute(key, base);
    return { scope: route.scopeOf([shard]), route };
  };
  if (key === "namespace") return (type, scope) => (type.namespaced ? byHash(type, scope) : undefined);
  const uses = usesOfKinds(declarations);
  const label = `${SHARD_LABEL}=${shard.index}`;
  return (type, scope) => {
    const use = uses.get(kindOf(type));
    if (use === "primary") return byHash(type, scope);
    if (use !== "owned") return undefined;
    const selectors = (scope.labelSelector ? scope.labelSelector.split(",") : []).filter((s) => s !== label);
    const route = labelRoute({ ...scope, labelSelector: selectors.join(",") || undefined });
    return { scope: route.scopeOf([shard]), route };
  };
}

/**
 * The kinds a sharded manager's controllers would shard by hash under `key`: every namespaced
 * kind they declare (namespace key), or their primary kinds (uid key). The manager asks the
 * apiserver, once, whether it applies shard selectors to each.
 */
export function hashShardedKinds(
  key: ShardKey,
  declarations: readonly ControllerDeclaration[],
): ResourceType[] {
  const kinds = new Map<string, ResourceType>();
  for (const d of declarations) {
    const declared = key === "uid" ? [d.primary] : [d.primary, ...d.owns, ...d.watches];
    for (const { type } of declared) if (type.namespaced) kinds.set(kindOf(type), type);
  }
  return [...kinds.values()];
}

/** How the controllers use each kind: as primary only, owned only, or otherwise ("mixed"). */
function usesOfKinds(
  declarations: readonly ControllerDeclaration[],
): Map<string, "primary" | "owned" | "mixed"> {
  const uses = new Map<string, "primary" | "owned" | "mixed">();
  const use = (type: ResourceType, as: "primary" | "owned" | "mixed") => {
    const kind = kindOf(type);
    const before = uses.get(kind);
    uses.set(kind, before === undefined || before === as ? as : "mixed");
  };
  for (const declaration of declarations) {
    use(declaration.primary.type, "primary");
    for (const owned of declaration.owns) use(owned.type, "owned");
    for (const watched of declaration.watches) use(watched.type, "mixed");
  }
  return uses;
}

/** A selector every apiserver that shards must refuse: a range whose start is not below its end. */
const refusedSelector = "shardRange(object.metadata.uid, '0x0000000000000001', '0x0000000000000000')";

/**
 * Whether the apiserver applies shard selectors to lists and watches of `type`: a list of one
 * object whose `shardInfo` echoes the selector says yes. Lists of custom resources are filtered
 * without that echo (Kubernetes 1.36.3), so where it is missing the answer is a selector the
 * server must refuse: an error naming the shard selector means it reads them (such a read is
 * answered 500 and retried by the client, a few hundred milliseconds once per kind at start),
 * a list means it ignores them (the feature gate is off, or the cluster is older).
 */
export async function serverAppliesShardSelectors(
  client: Pick<Client, "listPage">,
  type: ResourceType,
  key: ShardKey,
  namespace: string | undefined,
  signal: AbortSignal,
): Promise<boolean> {
  const everything = shardSelector(key, [{ start: 0n, end: hashSpace }]);
  const page = await client.listPage(type, { namespace, limit: 1, shardSelector: everything, signal });
  if (page.shardInfo) return true;
  return client.listPage(type, { namespace, limit: 1, shardSelector: refusedSelector, signal }).then(
    () => false,
    (err: unknown) => {
      if (err instanceof Error && /shard selector/i.test(err.message)) return true;
      throw err;
    },
  );
}

/**
 * Whether the controller of `declaration` runs on `shard`: everywhere, but for a controller of a
 * cluster-scoped kind under the namespace key, which runs on shard 0 alone.
 */
export function runsOn(key: ShardKey, shard: HeldShard, declaration: ControllerDeclaration): boolean {
  return key === "uid" || declaration.primary.type.namespaced || shard.index === 0;
}

/**
 * The keys a controller on `shard` reconciles: under the namespace key, those of its namespaces
 * (all, for a cluster-scoped kind); under the uid key, those of the shard's primary objects that
 * its informer holds or saw deleted.
 */
export function shardAccepts<T extends KubeObject>(
  key: ShardKey,
  shard: HeldShard,
  primary: Informer<T>,
): (key: string) => boolean {
  const ranges = [shard.range];
  if (key === "uid") {
    return (k) => {
      const object = primary.store.get(k) ?? primary.tombstone(k);
      return object !== undefined && inShard(object, key, ranges);
    };
  }
  if (!primary.type.namespaced) return () => true;
  return (k) => inRanges(shardHash(parseKey(k).namespace ?? ""), ranges);
}

/** How a shard's cache joins the replica's merged watches ({@link WatchMerger}). */
export interface ShardMerging {
  readonly merger: WatchMerger;
  readonly shard: HeldShard;
}

/**
 * The cache of one held shard: informers of the kinds the shard narrows on the server are its own
 * (started, synced and stopped with the shard), until the replica merges them into one watch of
 * all its shards (`merging`); the others are the manager's shared ones, seen through the shard's
 * filter where it has one. Handlers the shard adds to informers it does not own are removed when
 * `stopped` aborts.
 */
export class ShardCache extends InformerCache {
  readonly #shared: InformerCache;
  readonly #place: Placement;
  readonly #merging: ShardMerging | undefined;
  /** Told of a handler that threw while a view moved: the cache's own error hook. */
  readonly #onError: (err: unknown) => void;
  /** The shard's views of the kinds it narrows, by kind and route. */
  readonly #views = new Map<string, MovableView<KubeObject>>();
  /** What closes the shard's views and takes them out of the merger, when it stops. */
  readonly #closing: (() => void)[] = [];

  constructor(
    client: WatchClient,
    options: InformerCacheOptions,
    shared: InformerCache,
    place: Placement,
    stopped: AbortSignal,
    merging?: ShardMerging,
  ) {
    super(client, options);
    this.#shared = shared;
    this.#place = place;
    this.#merging = merging;
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

  /** Cached reads: of the shard's informer, or the shared one's, filtered to the shard where the shard has a filter. */
  override async reader<T extends KubeObject>(
    type: ResourceType<T>,
    signal?: AbortSignal,
  ): Promise<CacheReader<T>> {
    const placed = this.#place(type, super.scopeFor(type));
    if (placed && "scope" in placed) {
      const informer = this.informer(type, placed.scope);
      await informer.waitForSync(signal, this.syncTimeoutMs);
      return readerOf(type, informer.store);
    }
    const reader = await this.#shared.reader(type, signal);
    if (!placed) return reader;
    const keep = (obj: T | undefined) => (obj && placed.filter(obj) ? obj : undefined);
    return {
      get: (name, namespace) => keep(reader.get(name, namespace)),
      list: (opts) => reader.list(opts).filter(placed.filter),
      byIndex: (index, value) => reader.byIndex(index, value).filter(placed.filter),
    };
  }

  /** The informer of `type` in `scope`: the shard's own, or the shared one seen from the shard. */
  override informer<T extends KubeObject>(
    type: ResourceType<T>,
    scope: InformerScope = this.scopeFor(type),
    indexers = {},
  ): Informer<T> {
    const placed = this.#place(type, scope);
    if (!placed || !("scope" in placed)) {
      const view = new MovableView(
        this.#shared.informer(type, scope, indexers),
        this.#onError,
        placed?.filter,
      );
      this.#closing.push(() => view.close());
      return view.informer;
    }
    if (!this.#merging) return super.informer(type, placed.scope, indexers);
    return this.#view(type, placed, indexers).informer as unknown as Informer<T>;
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

function kindOf(type: ResourceType): string {
  return `${type.apiVersion}/${type.kind}`;
}
