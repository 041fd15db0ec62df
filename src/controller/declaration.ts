/**
 * What the controller builder declares: a controller's name, the kind it reconciles, and the
 * kinds it owns and watches, each with its informer scope and the source that turns its changes
 * into keys. A host runs a declaration ({@link buildController}); `kubeloop/generate` reads the
 * kinds to derive RBAC, with the {@link PermissionRequest}s an operator declares beyond them.
 */
import type { KubeObject, ResourceType } from "../api/index.ts";
import type { InformerCache, InformerScope } from "../cache/index.ts";
import type { Predicate } from "./predicate.ts";
import { informerSource, type MapFn, type Source } from "./source.ts";

/** What a permission request needs to know about a resource type. */
export type PermissionTarget = Pick<ResourceType, "apiVersion" | "plural" | "namespaced">;

/** Permission to use some verbs on a resource type (or one of its subresources). */
export interface PermissionRequest {
  readonly type: PermissionTarget;
  readonly verbs: readonly string[];
  /** A subresource such as `status` or `finalizers`. */
  readonly subresource?: string;
  /** Grant only on the objects of these names (verbs that name one object: get, patch, update, delete). */
  readonly resourceNames?: readonly string[];
  /**
   * Grant only in this namespace (a Role there), e.g. leader-election leases in the operator's
   * namespace. Default: wherever the operator works.
   */
  readonly namespace?: string;
}

/**
 * A kind its controller declared with `owns()`, and its informer's scope; a controller's
 * `WatchedKind` fits, and `ctx.owned` lists them.
 *
 * @example
 * ```ts
 * controller(host)
 *   .for(Widget)
 *   .owns(ConfigMap, { scope: { namespace: "apps" } })
 *   .reconcile(reconcileWidget);
 * // in reconcileWidget: ctx.owned is [{ type: ConfigMap, scope: { namespace: "apps" } }]
 * ```
 */
export interface OwnedKind {
  readonly type: ResourceType;
  /** Absent: the cache's default scope for the kind. */
  readonly scope?: InformerScope;
}

/** Options of a watched kind. */
export interface WatchOptions<T extends KubeObject> {
  /** Filters events; all must pass. */
  predicates?: Predicate<T>[];
  /** Informer scope instead of the cache's default for the kind. */
  scope?: InformerScope;
}

/** A kind a controller watches: which informer, and how that informer's changes reach the queue. */
export interface WatchedKind<W extends KubeObject = KubeObject> {
  /** The kind. */
  readonly type: ResourceType<W>;
  /** The informer's scope; absent: the cache's default for the kind. */
  readonly scope?: InformerScope;
  /** The source that feeds a controller's queue from this kind's informer in `cache`. */
  source(cache: InformerCache): Source;
}

/**
 * A controller as declared by `controller(host).for(...).owns(...).watches(...)`: what
 * `.reconcile()` hands to the host, and returns.
 *
 * @example
 * ```ts
 * const declared = controller(manager).for(Widget).owns(ConfigMap).reconcile(reconcileWidget);
 * declared.owns.map((kind) => kind.type); // [ConfigMap]
 * ```
 */
export interface ControllerDeclaration<T extends KubeObject = KubeObject> {
  /** Unique name, used in logs, metrics and events. */
  readonly name: string;
  /** The kind it reconciles (`for`): a change queues the object's own key. */
  readonly primary: WatchedKind<T>;
  /** Kinds it creates and controls (`owns`): a change queues the controlling primary object. */
  readonly owns: readonly WatchedKind[];
  /** Further kinds it reads (`watches`): a change queues the keys the map function returns. */
  readonly watches: readonly WatchedKind[];
}

/**
 * Declares a kind whose changes pass `predicates` and `map` to keys, queued with the reason
 * `<label>:<Kind>:<event>` (e.g. `owned:ConfigMap:delete`).
 */
export function watchedKind<W extends KubeObject>(
  type: ResourceType<W>,
  map: MapFn<W>,
  options: WatchOptions<W>,
  label: string,
): WatchedKind<W> {
  const { scope, predicates = [] } = options;
  return {
    type,
    scope,
    source: (cache) => informerSource(cache.informer(type, scope), map, predicates, label),
  };
}
