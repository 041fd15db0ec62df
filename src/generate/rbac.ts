/**
 * Least-privilege RBAC from permission requests: one rule per API group and resource with
 * deduplicated, sorted verbs, in a ClusterRole (cluster-wide operator) or a Role (operator
 * confined to one namespace), bound to the operator's service account.
 */
import {
  ClusterRole,
  ClusterRoleBinding,
  type ClusterRoleBindingObject,
  type ClusterRoleObject,
  groupOf,
  type PolicyRule,
  Role,
  RoleBinding,
  type RoleBindingObject,
  type RoleObject,
} from "../api/index.ts";
import type { PermissionRequest } from "../controller/index.ts";
import { RbacError } from "./errors.ts";

/** Who gets the permissions, and where. */
export interface RbacOptions {
  /** Name of the roles and bindings. */
  readonly name: string;
  /** Confine the operator to this namespace (Role + RoleBinding); omit for cluster-wide (ClusterRole). */
  readonly namespace?: string;
  readonly serviceAccount: { readonly name: string; readonly namespace: string };
}

/** The roles and their bindings, in matching order: a ClusterRole for the cluster, a Role per namespace. */
export interface RbacObjects {
  readonly roles: (RoleObject | ClusterRoleObject)[];
  readonly bindings: (RoleBindingObject | ClusterRoleBindingObject)[];
}

/** Sorts before every namespace name, so the ClusterRole comes first. */
const clusterScope = "";
const knownVerbs = new Set([
  ...["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"],
  ...["use", "bind", "escalate", "impersonate", "approve", "sign"],
]);

/**
 * Builds least-privilege roles and bindings. Requests without a namespace land in the operator's
 * scope (a ClusterRole, or a Role in `options.namespace`); requests with one land in a Role in
 * that namespace. Throws {@link RbacError} on unknown or wildcard verbs, and when a namespaced
 * Role would have to grant a cluster-scoped resource.
 *
 * @example
 * ```ts
 * const { roles, bindings } = rbacFor(controllerPermissions({ primary: Widget, owns: [Deployment] }), {
 *   name: "widget-operator",
 *   serviceAccount: { name: "widget-operator", namespace: "widget-system" },
 * });
 * ```
 */
export function rbacFor(requests: readonly PermissionRequest[], options: RbacOptions): RbacObjects {
  const scopes = new Map<string, PermissionRequest[]>();
  for (const request of requests) {
    checkVerbs(request);
    const scope = request.namespace ?? options.namespace ?? clusterScope;
    scopes.set(scope, [...(scopes.get(scope) ?? []), request]);
  }
  const roles: RbacObjects["roles"] = [];
  const bindings: RbacObjects["bindings"] = [];
  for (const scope of [...scopes.keys()].sort()) {
    const namespace = scope === clusterScope ? undefined : scope;
    roles.push(roleObject(options.name, namespace, rulesFor(scopes.get(scope) ?? [], namespace)));
    bindings.push(bindingObject(options, namespace));
  }
  return { roles, bindings };
}

/** Aggregates requests into one rule per API group, resource and names, sorted, with sorted unique verbs. */
export function rulesFor(requests: readonly PermissionRequest[], namespace?: string): PolicyRule[] {
  const verbsByResource = new Map<string, Set<string>>();
  for (const request of requests) {
    if (namespace !== undefined && !request.type.namespaced) {
      throw new RbacError(
        `${request.type.plural} (${request.type.apiVersion}) is cluster-scoped, so a Role in namespace ${namespace} cannot grant it`,
        "run the operator cluster-wide (omit `namespace`) to get a ClusterRole, or drop the request",
      );
    }
    const resource = request.subresource
      ? `${request.type.plural}/${request.subresource}`
      : request.type.plural;
    const names = [...(request.resourceNames ?? [])].sort().join(",");
    const key = `${groupOf(request.type.apiVersion)}\u0000${resource}\u0000${names}`;
    const verbs = verbsByResource.get(key) ?? new Set<string>();
    for (const verb of request.verbs) verbs.add(verb);
    verbsByResource.set(key, verbs);
  }
  return [...verbsByResource.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, verbs]) => {
      const [group = "", resource = "", names = ""] = key.split("\u0000");
      const resourceNames = names ? { resourceNames: names.split(",") } : {};
      return { apiGroups: [group], resources: [resource], ...resourceNames, verbs: [...verbs].sort() };
    });
}

function checkVerbs(request: PermissionRequest): void {
  if (request.verbs.length === 0) {
    throw new RbacError(
      `the request for ${request.type.plural} has no verbs`,
      "list the verbs the operator uses",
    );
  }
  for (const verb of request.verbs) {
    if (!knownVerbs.has(verb)) {
      throw new RbacError(
        `verb "${verb}" on ${request.type.plural} is ${verb === "*" ? "a wildcard, not least privilege" : "not a Kubernetes verb"}`,
        `list the verbs explicitly, from ${[...knownVerbs].join(", ")}`,
      );
    }
  }
}

function roleObject(
  name: string,
  namespace: string | undefined,
  rules: PolicyRule[],
): RoleObject | ClusterRoleObject {
  return namespace === undefined
    ? { apiVersion: ClusterRole.apiVersion, kind: ClusterRole.kind, metadata: { name }, rules }
    : { apiVersion: Role.apiVersion, kind: Role.kind, metadata: { name, namespace }, rules };
}

function bindingObject(
  options: RbacOptions,
  namespace: string | undefined,
): RoleBindingObject | ClusterRoleBindingObject {
  const name = options.name;
  const subjects = [
    {
      kind: "ServiceAccount",
      name: options.serviceAccount.name,
      namespace: options.serviceAccount.namespace,
    },
  ];
  return namespace === undefined
    ? {
        apiVersion: ClusterRoleBinding.apiVersion,
        kind: ClusterRoleBinding.kind,
        metadata: { name },
        roleRef: { apiGroup: groupOf(ClusterRole.apiVersion), kind: ClusterRole.kind, name },
        subjects,
      }
    : {
        apiVersion: RoleBinding.apiVersion,
        kind: RoleBinding.kind,
        metadata: { name, namespace },
        roleRef: { apiGroup: groupOf(Role.apiVersion), kind: Role.kind, name },
        subjects,
      };
}
