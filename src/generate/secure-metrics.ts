/**
 * What secure metrics need in a cluster, as kubebuilder scaffolds them: a Service in front of the
 * HTTPS metrics port, the right for the operator to ask the apiserver who a caller is and what it
 * may do (`metrics_auth_role`: create TokenReviews and SubjectAccessReviews), and a
 * `<name>-metrics-reader` ClusterRole (get on the non-resource URL `/metrics`) for whoever
 * scrapes it, e.g. Prometheus, to be bound to.
 */
import {
  ClusterRole,
  type ClusterRoleObject,
  Service,
  type ServiceObject,
  SubjectAccessReview,
  TokenReview,
} from "../api/index.ts";
import { type RbacObjects, type RbacOptions, rbacFor } from "./rbac.ts";

/** The port of secure metrics, as in kubebuilder's scaffold. */
export const SECURE_METRICS_PORT = 8443;

/** The name of the operator's metrics Service: `<name>-metrics`. */
export function metricsServiceName(name: string): string {
  return `${name}-metrics`;
}

/**
 * The Service `<name>-metrics` in front of the operator's metrics port (`https`, 8443), selecting
 * the operator's pods by `selector`.
 *
 * @example
 * ```ts
 * metricsServiceManifest({
 *   name: "widgets",
 *   namespace: "widgets-system",
 *   selector: { "app.kubernetes.io/name": "widgets" },
 * });
 * ```
 */
export function metricsServiceManifest(options: {
  name: string;
  namespace: string;
  selector: Record<string, string>;
  port?: number;
}): ServiceObject {
  const port = options.port ?? SECURE_METRICS_PORT;
  return {
    apiVersion: Service.apiVersion,
    kind: Service.kind,
    metadata: {
      name: metricsServiceName(options.name),
      namespace: options.namespace,
      labels: options.selector,
    },
    spec: { selector: options.selector, ports: [{ name: "https", port, targetPort: "metrics" }] },
  };
}

/**
 * The ClusterRole `<name>-metrics-auth` and its binding to the operator's service account: create
 * TokenReviews and SubjectAccessReviews, which the manager's secure metrics ask for each caller.
 * Cluster-wide even for an operator confined to one namespace, since both are cluster-scoped.
 *
 * @example
 * ```ts
 * metricsAuthRbac({ name: "widgets", serviceAccount: { name: "widgets", namespace: "widgets-system" } });
 * ```
 */
export function metricsAuthRbac(options: Omit<RbacOptions, "namespace">): RbacObjects {
  return rbacFor(
    [
      { type: TokenReview, verbs: ["create"] },
      { type: SubjectAccessReview, verbs: ["create"] },
    ],
    { name: `${options.name}-metrics-auth`, serviceAccount: options.serviceAccount },
  );
}

/**
 * The ClusterRole `<name>-metrics-reader`: `get` on `/metrics`. Bind it to whoever scrapes the
 * operator (e.g. Prometheus' service account); the operator itself is not bound to it.
 *
 * @example
 * ```ts
 * metricsReaderRole("widgets"); // kubectl create clusterrolebinding prometheus-widgets --clusterrole=widgets-metrics-reader --serviceaccount=monitoring:prometheus
 * ```
 */
export function metricsReaderRole(name: string): ClusterRoleObject {
  return {
    apiVersion: ClusterRole.apiVersion,
    kind: ClusterRole.kind,
    metadata: { name: `${name}-metrics-reader` },
    rules: [{ nonResourceURLs: ["/metrics"], verbs: ["get"] }],
  };
}
