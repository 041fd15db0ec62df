/**
 * What a sharded manager runs on each virtual shard it holds: the operator's `setup` on a cache of
 * that shard alone ({@link ShardCache}), so that its informers ask the apiserver for the shard's
 * objects only and are dropped, with their memory, when the shard is given up. Where an object
 * belongs is the {@link ShardingOptions.key}'s choice; {@link shardPlacement} applies it per kind.
 */
import { type KubeObject, parseKey, type ResourceType } from "../api/index.ts";
import {
  type CacheReader,
  type Informer,
  InformerCache,
  type InformerCacheOptions,
  type InformerScope,
} from "../cache/index.ts";
import type { ControllerDeclaration } from "../controller/index.ts";
import type { ElectionTimings } from "../election/index.ts";
import { type HeldShard, inRanges, inShard, type ShardKey, shardHash } from "../sharding/index.ts";
import type { WatchClient } from "../watch/index.ts";

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
  /** Prefix of the Leases (`<name>-shard-<i>`, `<name>-member-<identity>`). Default: the manager's name. */
  name?: string;
  /** Namespace of the Leases. Default: the client's default namespace (the pod's). */
  namespace?: string;
  /** This replica's identity. Default: `$POD_NAME_$POD_UID` when set, else host name and a random suffix. */
  identity?: string;
}

/**
 * Where an informer of `type` in `scope` goes for one shard: the scope narrowed to the shard, or
 * undefined for a kind the shard does not narrow (the manager's shared cache serves it).
 */
export type Placement = (type: ResourceType, scope: InformerScope) => InformerScope | undefined;

/**
 * The {@link Placement} of `shard` under `key`, for controllers that declared `declarations`.
 * Under the uid key a kind is narrowed only where every controller uses it alike: only as a
 * primary kind (by uid), or only as an owned kind (by the shard label); a kind also watched, or
 * read without a declaration, is cached whole, as the maps and reads over it may need any object.
 */
export function shardPlacement(
  key: ShardKey,
  shard: HeldShard,
  declarations: readonly ControllerDeclaration[],
): Placement {
  const ranges = [shard.range];
  if (key === "namespace") {
    return (type, scope) => (type.namespaced ? { ...scope, shard: { key, ranges } } : undefined);
  }
  const uses = usesOfKinds(declarations);
  const label = `${SHARD_LABEL}=${shard.index}`;
  return (type, scope) => {
    const use = uses.get(kindOf(type));
    if (use === "primary") return { ...scope, shard: { key, ranges } };
    if (use !== "owned") return undefined;
    const selectors = scope.labelSelector ? scope.labelSelector.split(",") : [];
    if (selectors.includes(label)) return scope;
    return { ...scope, labelSelector: [...selectors, label].join(",") };
  };
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

/**
 * The cache of one held shard: informers of the kinds the shard narrows are its own (started,
 * synced and stopped with the shard); the others are the manager's shared ones, and handlers the
 * shard adds to those are removed when `stopped` aborts.
 */
export class ShardCache extends InformerCache {
  readonly #shared: InformerCache;
  readonly #place: Placement;
  readonly #stopped: AbortSignal;

  constructor(
    client: WatchClient,
    options: InformerCacheOptions,
    shared: InformerCache,
    place: Placement,
    stopped: AbortSignal,
  ) {
    super(client, options);
    this.#shared = shared;
    this.#place = place;
    this.#stopped = stopped;
  }

  /** The scope of `type` narrowed to the shard, where the shard narrows it. */
  override scopeFor(type: ResourceType): InformerScope {
    const scope = super.scopeFor(type);
    return this.#place(type, scope) ?? scope;
  }

  /** Cached reads: of the shard's informer, or the shared cache's for a kind the shard does not narrow. */
  override reader<T extends KubeObject>(
    type: ResourceType<T>,
    signal?: AbortSignal,
  ): Promise<CacheReader<T>> {
    if (!this.#place(type, super.scopeFor(type))) return this.#shared.reader(type, signal);
    return super.reader(type, signal);
  }

  /** The informer of `type` in `scope` narrowed to the shard, or the shared one where the shard does not narrow the kind. */
  override informer<T extends KubeObject>(
    type: ResourceType<T>,
    scope: InformerScope = this.scopeFor(type),
    indexers = {},
  ): Informer<T> {
    const placed = this.#place(type, scope);
    if (placed) return super.informer(type, placed, indexers);
    return handlersUntil(this.#shared.informer(type, scope, indexers), this.#stopped);
  }
}

/** `informer`, with every handler added through it removed when `signal` aborts. */
function handlersUntil<T extends KubeObject>(informer: Informer<T>, signal: AbortSignal): Informer<T> {
  return new Proxy(informer, {
    get(target, property) {
      if (property === "addHandler") {
        return (handler: Parameters<Informer<T>["addHandler"]>[0]) => {
          const remove = target.addHandler(handler);
          signal.addEventListener("abort", remove, { once: true });
          return remove;
        };
      }
      // The informer itself as receiver: its private fields are not the proxy's.
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

function kindOf(type: ResourceType): string {
  return `${type.apiVersion}/${type.kind}`;
}
