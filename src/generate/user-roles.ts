/**
 * Roles for the people who use an operator's kinds, not for the operator: an editor and a viewer
 * ClusterRole per kind, as kubebuilder scaffolds them (`<kind>_editor_role.yaml`,
 * `<kind>_viewer_role.yaml`), and aggregated into Kubernetes' default user-facing roles, so that
 * whoever may `edit` or `view` a namespace may do the same with these kinds there, with no binding
 * of their own.
 */
import { ClusterRole, type ClusterRoleObject } from "../api/index.ts";
import type { AnyKind } from "../schema/index.ts";

const aggregateTo = (...roles: string[]) =>
  Object.fromEntries(roles.map((role) => [`rbac.authorization.k8s.io/aggregate-to-${role}`, "true"]));

/** One user-facing role on a kind: the verbs on the kind, and read access to its status. */
function userRole(operator: string, kind: AnyKind, role: "editor" | "viewer"): ClusterRoleObject {
  const verbs =
    role === "editor"
      ? ["create", "delete", "get", "list", "patch", "update", "watch"]
      : ["get", "list", "watch"];
  return {
    apiVersion: ClusterRole.apiVersion,
    kind: ClusterRole.kind,
    metadata: {
      name: `${operator}-${kind.singular}-${role}`,
      labels: {
        "app.kubernetes.io/managed-by": "kubeloop",
        "app.kubernetes.io/part-of": operator,
        ...(role === "editor" ? aggregateTo("admin", "edit") : aggregateTo("view")),
      },
    },
    rules: [
      { apiGroups: [kind.group], resources: [kind.plural], verbs },
      { apiGroups: [kind.group], resources: [`${kind.plural}/status`], verbs: ["get"] },
    ],
  };
}

/**
 * The editor and viewer ClusterRoles of each kind: `<operator>-<singular>-editor` (create, delete,
 * get, list, patch, update, watch; aggregated to `admin` and `edit`) and
 * `<operator>-<singular>-viewer` (get, list, watch; aggregated to `view`), each with read access to
 * the status. They grant the operator nothing.
 *
 * @example
 * ```ts
 * toYaml(userRoles("widgets", [Widget])); // widgets-widget-editor, widgets-widget-viewer
 * ```
 */
export function userRoles(operator: string, kinds: readonly AnyKind[]): ClusterRoleObject[] {
  return kinds.flatMap((kind) => [userRole(operator, kind, "editor"), userRole(operator, kind, "viewer")]);
}
