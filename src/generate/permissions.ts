/**
 * The standard permission sets of a controller, as {@link PermissionRequest}s for `rbacFor`: the
 * verbs the framework's helpers send, and no more (a reconciler that calls the client itself for
 * anything else declares it in the operator's `permissions`). What each helper sends:
 *
 * | Helper | Requests | Verbs |
 * | ------ | -------- | ----- |
 * | informers (`for`, `owns`, `watches`, `ctx.cache`) | list, watch | `list`, `watch` |
 * | `ensureChild` | creates a missing child; server-side applies (or JSON-patches away others' additions to) an existing one; GETs it to name who drifted it | `create`, `patch`, `get` (an apply that creates is authorized as a create too) |
 * | `setControllerReference` (`blockOwnerDeletion`) | none; the OwnerReferencesPermissionEnforcement admission plugin checks the owner's `finalizers` | `update` on `<primary>/finalizers` |
 * | `withFinalizer` | JSON patch of `metadata.finalizers` | `patch` on the primary |
 * | `writeStatus` | merge patch or apply of `/status`; GET of `/status` after a conflict and of the object after a 404 | `patch`, `get` on `<primary>/status`; `get` on the primary |
 * | `EventRecorder` | create an events.k8s.io/v1 Event, patch its series | `create`, `patch` on `events` |
 * | `LeaderElector` | read, create and update the Lease | `get`, `create`, `update` on `leases` |
 * | `ShardCoordinator` | list the Leases, elect each shard's, delete its membership Lease when it stops | `get`, `list`, `create`, `update`, `delete` on `leases` |
 *
 * No helper sends `update` or `delete` on a child or the primary: children go with their owner by
 * garbage collection, and every change to an existing object is a patch. (kubebuilder's scaffolded
 * RBAC markers grant all seven verbs on children; kubeloop grants what its helpers use.)
 */
import { Event, Lease } from "../api/index.ts";
import type { PermissionRequest, PermissionTarget } from "../controller/index.ts";

const readVerbs = ["get", "list", "watch"];

/** Read and watch a kind (get, list, watch): for every kind a controller watches. */
export function watchPermissions(type: PermissionTarget): PermissionRequest[] {
  return [{ type, verbs: readVerbs }];
}

/**
 * A kind a controller owns: read and watch it, and what `ensureChild` writes with: `create` for a
 * missing child, `patch` for server-side apply and JSON patches. A reconciler's own
 * `client.create` of a child needs nothing more.
 */
export function ownPermissions(type: PermissionTarget): PermissionRequest[] {
  return [{ type, verbs: [...readVerbs, "create", "patch"] }];
}

/**
 * The primary kind: read and watch it; `patch` for `withFinalizer`; the `status` subresource
 * (`get`, `patch`) for `writeStatus`; and `update` on `finalizers`, which the
 * OwnerReferencesPermissionEnforcement admission plugin requires to set `blockOwnerDeletion` on
 * children.
 */
export function primaryPermissions(type: PermissionTarget): PermissionRequest[] {
  return [
    { type, verbs: [...readVerbs, "patch"] },
    { type, subresource: "status", verbs: ["get", "patch"] },
    { type, subresource: "finalizers", verbs: ["update"] },
  ];
}

/**
 * Recording events.k8s.io/v1 events (create, patch: the recorder patches an event's series),
 * wherever the operator works, or only in `namespace`.
 */
export function eventPermissions(namespace?: string): PermissionRequest[] {
  return [{ type: Event, verbs: ["create", "patch"], ...(namespace === undefined ? {} : { namespace }) }];
}

/** Leader election with coordination.k8s.io leases (get, create, update) in the given namespace. */
export function leaderElectionPermissions(namespace?: string): PermissionRequest[] {
  return [
    { type: Lease, verbs: ["get", "create", "update"], ...(namespace === undefined ? {} : { namespace }) },
  ];
}

/**
 * Sharding across replicas with coordination.k8s.io leases in the given namespace: leader
 * election's verbs, `list` (each replica reads every shard's Lease to plan its share) and
 * `delete` (a replica deletes its membership Lease when it stops; the
 * OwnerReferencesPermissionEnforcement admission plugin also asks for it to set the membership
 * Lease's owner reference to the replica's pod, which needs no permission on the pod since it does
 * not set `blockOwnerDeletion`).
 */
export function shardingPermissions(namespace?: string): PermissionRequest[] {
  return [
    {
      type: Lease,
      verbs: ["get", "list", "create", "update", "delete"],
      ...(namespace === undefined ? {} : { namespace }),
    },
  ];
}

/** What a controller does, for {@link controllerPermissions}. */
export interface ControllerPermissionOptions {
  /** The kind the controller reconciles. */
  readonly primary: PermissionTarget;
  /** Kinds it creates and owns. */
  readonly owns?: readonly PermissionTarget[];
  /** Further kinds it only reads. */
  readonly watches?: readonly PermissionTarget[];
  /** Records events; default true. */
  readonly events?: boolean;
  /** Leader election leases, in the operator's namespace; omit or `false` without leader election. */
  readonly leaderElection?: false | { readonly namespace: string };
}

/**
 * Every permission a typical controller needs; pass the result to `rbacFor`.
 *
 * @example
 * ```ts
 * controllerPermissions({
 *   primary: LoadTest,
 *   owns: [Job, ConfigMap],
 *   watches: [Pod],
 *   leaderElection: { namespace: "lt" },
 * });
 * ```
 */
export function controllerPermissions(options: ControllerPermissionOptions): PermissionRequest[] {
  return [
    ...primaryPermissions(options.primary),
    ...(options.owns ?? []).flatMap(ownPermissions),
    ...(options.watches ?? []).flatMap(watchPermissions),
    ...(options.events === false ? [] : eventPermissions()),
    ...(options.leaderElection ? leaderElectionPermissions(options.leaderElection.namespace) : []),
  ];
}
