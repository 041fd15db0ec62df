/**
 * What a sharded manager runs on each virtual shard it holds: the operator's `setup` on a cache of
 * that shard alone (`ShardCache`), so that its informers ask the apiserver for the shard's
 * objects only and are dropped, with their memory, when the shard is given up. Where an object
 * belongs is the {@link ShardingOptions.key}'s choice; {@link shardPlacement} applies it per kind.
 */
import { type KubeObject, parseKey, type ResourceType } from "../api/index.ts";
import type { Informer, InformerScope } from "../cache/index.ts";
import type { Client } from "../client/index.ts";
import type { ControllerDeclaration } from "../controller/index.ts";
import type { ElectionTimings } from "../election/index.ts";
import {
  bucketsOf,
  bucketWithin,
  hashBucket,
  hashSpace,
  inRanges,
  inShard,
  objectShardHash,
  SHARD_LABEL,
  type ShardKey,
  shardHash,
  shardSelector,
} from "../sharding/index.ts";
import type { HeldShard } from "./coordinator.ts";
import type { Route } from "./watch-merger.ts";

export { SHARD_LABEL } from "../sharding/index.ts";

/**
 * Sharding of a manager's controllers across its replicas: the hash space is split into
 * `shards` virtual shards, each held by one replica at a time through a Lease
 * (`ShardCoordinator`), and a replica reconciles the objects of the shards it
 * holds, watching only those.
 */
export interface ShardingOptions extends Partial<ElectionTimings> {
  /**
   * What places an object in a shard. Either way nothing a controller declares is hidden from it.
   *
   * - `"namespace"` (default): the hash of its namespace. A namespace's objects — the primary
   *   objects, their children and the inputs watched there — go to one replica together, and
   *   every namespaced kind the controllers declare is sharded on the server. Objects spread only
   *   as far as namespaces do: one namespace is one shard. Cached whole by every replica instead:
   *   a kind watched in one namespace (`watches(Kind, map, { scope: { namespace } })`, e.g. an
   *   operator-wide settings ConfigMap) and kinds no controller declares. A controller of a
   *   cluster-scoped kind runs on the holder of shard 0, which caches whole the namespaced kinds
   *   it owns or watches. A cached read (`cache.reader`) of a namespace the shard does not hold
   *   goes to an informer holding it whole, or throws `OutsideShardReadError`; a map function
   *   that returns keys of other shards' namespaces from a kind sharded here is warned about
   *   once (those shards never see its objects: give the watch a namespace scope). Children of
   *   a namespaced owner made by `ensureChild` carry its shard label (`kubeloop.dev/shard`).
   * - `"uid"`: the hash of the primary object's uid, spreading the objects of one namespace.
   *   Children are labelled `kubeloop.dev/shard` with their owner's shard by `ensureChild` and
   *   watched by that label; an owned kind's objects without the label (children made with
   *   `client.create` or `apply`, or by someone else) are cached whole by every replica beside
   *   them. Other watched kinds are cached whole by every replica, and the keys they map to are
   *   kept only for primary objects of the replica's shards.
   *
   * Either key, where the apiserver ignores shard selectors (gate `ShardedListAndWatch` off), places
   * a controller's primary kind by the label `kubeloop.dev/shard`: the object's hash bucket (the
   * top 8 bits of its hash), set at creation by the operator's mutating webhook (namespace key) and
   * otherwise by each shard's holder; every replica then receives only its shards' buckets, and
   * once each object not labelled yet. The label does not depend on `shards`: changing it moves no
   * label.
   */
  key?: ShardKey;
  /** How many virtual shards the hash space is split into; every replica must agree. Default 32. */
  shards?: number;
  /** Prefix of the Leases (`<name>-shard-<i>-of-<shards>`, `<name>-member-<hash of the identity>-of-<shards>`). Default: the manager's name. */
  name?: string;
  /** Namespace of the Leases. Default: the client's default namespace (the pod's). */
  namespace?: string;
  /** This replica's identity. Default: `$POD_NAME_$POD_UID` when set, else host name and a random suffix. */
  identity?: string;
}

/**
 * Objects a shard labels: among the shared informer's unlabelled ones (`unrouted`), those that
 * `keeps` (the shard's by hash) are given `kubeloop.dev/shard: <their bucket>`, and are then
 * watched by the label.
 */
export interface ShardLabelling {
  /** The label value of an object: its hash bucket. */
  readonly value: (obj: KubeObject) => string;
  /** Whether an unlabelled object is the shard's: the hash the server path shards by. */
  readonly keeps: (obj: KubeObject) => boolean;
}

/**
 * Where a shard's informer of a kind comes from:
 * - `{ scope, route }`: its own, narrowed to the shard, which the replica merges with its other
 *   shards' along `route`; with `unrouted`, joined with the manager's shared informer of the kind's
 *   objects the route cannot place (children without the shard label), at that scope; with
 *   `labels`, only the shard's among those, which the shard labels;
 * - `{ filter }`: the manager's shared informer of the whole kind seen through the shard's filter
 *   (where the apiserver ignores the shard selector, so that the replica receives the kind once,
 *   not once per shard);
 * - `undefined`: the shared informer, whole.
 *
 * `holds`, under the namespace key, tells which namespaces the shard's view holds: cached reads of
 * other namespaces go to an informer that holds them ({@link ShardCache.reader}).
 */
export type Placed =
  | {
      readonly scope: InformerScope;
      readonly route: Route;
      readonly unrouted?: InformerScope;
      readonly labels?: ShardLabelling;
      readonly holds?: (namespace: string) => boolean;
    }
  | { readonly filter: (obj: KubeObject) => boolean; readonly holds?: (namespace: string) => boolean }
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

/** The label selector of the buckets `shards` overlap: `kubeloop.dev/shard in (…)`, or any value for all 256. */
export function bucketSelector(shards: readonly Pick<HeldShard, "range">[]): string {
  const buckets = [...new Set(shards.flatMap((s) => bucketsOf(s.range)))].sort((a, b) => a - b);
  if (buckets.length === 256) return SHARD_LABEL;
  return buckets.length === 1 ? `${SHARD_LABEL}=${buckets[0]}` : `${SHARD_LABEL} in (${buckets.join(",")})`;
}

/**
 * The {@link Route} of objects by their shard label (their bucket), within `base`: a shard watches
 * every bucket its range overlaps, and keeps of the (at most two) buckets its range's edges cut
 * those whose full hash, `hashOf`, is its own.
 */
export function labelRoute(base: InformerScope, hashOf: (obj: KubeObject) => bigint): Route {
  const selectors = base.labelSelector ? [base.labelSelector] : [];
  return {
    by: SHARD_LABEL,
    base,
    scopeOf: (shards) => ({ ...base, labelSelector: [...selectors, bucketSelector(shards)].join(",") }),
    keeps:
      ({ range }) =>
      (obj) => {
        const bucket = Number(obj.metadata.labels?.[SHARD_LABEL] ?? Number.NaN);
        if (!bucketsOf(range).includes(bucket)) return false;
        return bucketWithin(bucket, range) || inRanges(hashOf(obj), [range]);
      },
  };
}

/** True when `selector` is one {@link labelRoute} added: the shard label's, not the user's. */
const isShardSelector = (selector: string) => selector.startsWith(SHARD_LABEL);

/**
 * The placement of `scope` by the shard label: the shard's buckets (merged along
 * {@link labelRoute}), joined with the kind's unlabelled objects (`!kubeloop.dev/shard`).
 * Placing a scope it returned again changes nothing.
 */
function byShardLabel(shard: HeldShard, scope: InformerScope, hashOf: (obj: KubeObject) => bigint) {
  const selectors = splitSelector(scope.labelSelector).filter((s) => !isShardSelector(s));
  const base = { ...scope, labelSelector: selectors.join(",") || undefined };
  const route = labelRoute(base, hashOf);
  const unrouted = { ...base, labelSelector: [...selectors, `!${SHARD_LABEL}`].join(",") };
  return { scope: route.scopeOf([shard]), route, unrouted };
}

/** The requirements of a label selector, split at the commas outside `in (…)` lists. */
function splitSelector(selector: string | undefined): string[] {
  return selector ? (selector.match(/(?:[^,(]|\([^)]*\))+/g) ?? []) : [];
}

/** The hash a child's shard label stands for under the uid key: its controlling owner's uid's. */
function ownerUidHash(obj: KubeObject): bigint {
  return shardHash(obj.metadata.ownerReferences?.find((ref) => ref.controller)?.uid ?? "");
}

/** The shard label value of `obj` under `key`: its bucket. */
export function shardLabelValue(obj: KubeObject, key: ShardKey): string {
  return String(hashBucket(objectShardHash(obj, key)));
}

/** Where each informer of one shard comes from ({@link Placed}). */
export type Placement = (type: ResourceType, scope: InformerScope) => Placed;

/**
 * The {@link Placement} of `shard` under `key`, for controllers that declared `declarations`;
 * `serverShards` tells whether the apiserver applies shard selectors to a kind. Where it does
 * not, a controller's primary kind is placed by the shard label (the index of the shard its hash
 * falls in: the same placement), joined with the kind's unlabelled objects of the shard, which the
 * shard labels; other kinds are the shared informer through the shard's filter. Nothing a
 * controller on the shard may need is left out:
 *
 * - namespace key: a namespaced kind the controllers declare is narrowed to the shard's
 *   namespaces, unless an informer of one namespace is asked for (an input in a fixed namespace:
 *   all of it or none would be the shard's) or a controller of a cluster-scoped kind running on the
 *   shard owns or watches it (its children and inputs may be in any namespace): those, and kinds
 *   nobody declared, are cached whole.
 * - uid key: a kind every controller uses only as its primary kind is narrowed by uid; one used
 *   only as an owned kind is read from the children labelled with the shard by `ensureChild`,
 *   joined with the kind's unlabelled objects, cached whole (children made otherwise); a kind also
 *   watched, or read without a declaration, is cached whole, as the maps and reads over it may
 *   need any object.
 */
export function shardPlacement(
  key: ShardKey,
  shard: HeldShard,
  declarations: readonly ControllerDeclaration[],
  serverShards: (type: ResourceType) => boolean,
): Placement {
  const primaries = new Set(declarations.map((d) => kindOf(d.primary.type)));
  const byHash = (type: ResourceType, { shard: _, ...base }: InformerScope): Placed => {
    const keeps = (obj: KubeObject) => inShard(obj, key, [shard.range]);
    if (!serverShards(type) && primaries.has(kindOf(type))) {
      const value = (obj: KubeObject) => shardLabelValue(obj, key);
      return { ...byShardLabel(shard, base, (obj) => objectShardHash(obj, key)), labels: { value, keeps } };
    }
    if (!serverShards(type)) return { filter: keeps };
    const route = hashRoute(key, base);
    return { scope: route.scopeOf([shard]), route };
  };
  return key === "namespace" ? byNamespace(shard, declarations, byHash) : byUid(shard, declarations, byHash);
}

/** The namespace key's {@link Placement}: see {@link shardPlacement}. */
function byNamespace(
  shard: HeldShard,
  declarations: readonly ControllerDeclaration[],
  byHash: Placement,
): Placement {
  const declared = new Set(declarations.flatMap(kindsDeclared));
  const clusterWide = declarations.filter((d) => !d.primary.type.namespaced && runsOn("namespace", shard, d));
  const whole = new Set(clusterWide.flatMap(kindsDeclared));
  const holds = (namespace: string) => inRanges(shardHash(namespace), [shard.range]);
  return (type, scope) => {
    const kind = kindOf(type);
    if (!type.namespaced || scope.namespace || !declared.has(kind) || whole.has(kind)) return undefined;
    const placed = byHash(type, scope);
    return placed && { ...placed, holds };
  };
}

/** The uid key's {@link Placement}: see {@link shardPlacement}. */
function byUid(
  shard: HeldShard,
  declarations: readonly ControllerDeclaration[],
  byHash: Placement,
): Placement {
  const uses = usesOfKinds(declarations);
  return (type, scope) => {
    const use = uses.get(kindOf(type));
    if (use === "primary") return byHash(type, scope);
    return use === "owned" ? byShardLabel(shard, scope, ownerUidHash) : undefined;
  };
}

/** The kinds `declaration` reconciles, owns and watches, by `apiVersion/kind`. */
function kindsDeclared(declaration: ControllerDeclaration): string[] {
  return [declaration.primary, ...declaration.owns, ...declaration.watches].map(({ type }) => kindOf(type));
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
 * its informer holds or saw deleted. Under the namespace key, a key refused is told to `refused`
 * with the reason it was queued for (see {@link warnLostMappings}).
 */
export function shardAccepts<T extends KubeObject>(
  key: ShardKey,
  shard: HeldShard,
  primary: Informer<T>,
  refused?: (key: string, reason: string) => void,
): (key: string, reason?: string) => boolean {
  const ranges = [shard.range];
  if (key === "uid") {
    return (k) => {
      const object = primary.store.get(k) ?? primary.tombstone(k);
      return object !== undefined && inShard(object, key, ranges);
    };
  }
  if (!primary.type.namespaced) return () => true;
  return (k, reason = "") => {
    if (inRanges(shardHash(parseKey(k).namespace ?? ""), ranges)) return true;
    refused?.(k, reason);
    return false;
  };
}

/**
 * Under the namespace key, what to do with a key of another shard's namespace that a map function
 * of `declaration` returned for an object of a kind the shard narrows to its own namespaces: the
 * shard holding that namespace never sees the object, so its controller would never hear of the
 * change. Tells `warn`, once per kind, what is lost and how to fix it.
 */
export function warnLostMappings(
  declaration: ControllerDeclaration,
  place: Placement,
  scopeFor: (type: ResourceType) => InformerScope,
  warn: (message: string) => void,
): (key: string, reason: string) => void {
  const warned = new Set<string>();
  return (key, reason) => {
    const [source, kind = ""] = reason.split(":");
    const watched = source === "mapped" ? declaration.watches.find((w) => w.type.kind === kind) : undefined;
    if (!watched || warned.has(kind)) return;
    const placed = place(watched.type, watched.scope ?? scopeFor(watched.type));
    if (!placed?.holds) return;
    warned.add(kind);
    warn(
      `controller "${declaration.name}" maps ${kind} objects to keys of namespaces other shards hold (${key}), ` +
        `but sharded by namespace each shard watches ${kind} in its own namespaces only: the shard holding those ` +
        `keys never hears of these changes. Watch ${kind} in the namespace of those objects, ` +
        `.watches(${kind}, map, { scope: { namespace } }) (an informer of one namespace is cached whole on every ` +
        'shard), or shard by uid (sharding: { key: "uid" })',
    );
  };
}

function kindOf(type: ResourceType): string {
  return `${type.apiVersion}/${type.kind}`;
}
