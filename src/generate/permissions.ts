/**
 * The standard permission sets of a controller, as {@link PermissionRequest}s for `rbacFor`.
 */
import { Event, Lease } from "../api/index.ts";
import type { PermissionRequest, PermissionTarget } from "./rbac.ts";

const readVerbs = ["get", "list", "watch"];
const writeVerbs = ["create", "update", "patch", "delete"];

/** Read and watch a kind (get, list, watch): for every kind a controller watches. */
export function watchPermissions(type: PermissionTarget): PermissionRequest[] {
  return [{ type, verbs: readVerbs }];
}

/** Read, watch and write a kind: for the children a controller owns. */
export function ownPermissions(type: PermissionTarget): PermissionRequest[] {
  return [{ type, verbs: [...readVerbs, ...writeVerbs] }];
}

/**
 * The primary kind: read and watch, update and patch (finalizers and other metadata are written
 * through the main endpoint), the `status` subresource (get, update, patch) and `finalizers`
 * (update, needed to set `blockOwnerDeletion` on children).
 */
export function primaryPermissions(type: PermissionTarget): PermissionRequest[] {
  return [
    { type, verbs: [...readVerbs, "update", "patch"] },
    { type, subresource: "status", verbs: ["get", "update", "patch"] },
    { type, subresource: "finalizers", verbs: ["update"] },
  ];
}

/** Recording events.k8s.io/v1 events (create, patch). */
export function eventPermissions(): PermissionRequest[] {
  return [{ type: Event, verbs: ["create", "patch"] }];
}

/** Leader election with coordination.k8s.io leases (get, create, update) in the given namespace. */
export function leaderElectionPermissions(namespace?: string): PermissionRequest[] {
  return [
    { type: Lease, verbs: ["get", "create", "update"], ...(namespace === undefined ? {} : { namespace }) },
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
 * controllerPermissions({ primary: LoadTest, owns: [Job, ConfigMap], watches: [Pod], leaderElection: { namespace: "lt" } });
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
