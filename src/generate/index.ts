/**
 * @module generate
 *
 * Everything a cluster needs to run an operator, derived from its declaration: least-privilege
 * RBAC from what its controllers watch and own ({@link permissionsOf}, {@link declaredPermissions},
 * {@link rbacFor}, {@link controllerPermissions}), and the deployment — CRDs, Namespace, ServiceAccount, RBAC, a
 * hardened Deployment with probes and secure metrics (a metrics Service, the `metrics-auth` and
 * `metrics-reader` ClusterRoles of kubebuilder's scaffold), the other objects the operator ships
 * (its `manifests`), for its webhooks a Service, the webhook configurations, the CRDs' conversion
 * stanzas and a certificate from cert-manager or the manager itself ({@link webhookManifests}),
 * a kustomization and a Dockerfile
 * ({@link manifestsOf}, {@link operatorManifests}), and monitoring: a Grafana dashboard of the
 * operator's metrics and Prometheus alert rules for the ways it fails, with a ServiceMonitor and a
 * PrometheusRule for the Prometheus Operator ({@link monitoringFiles}, {@link grafanaDashboard},
 * {@link alertRules}), and a Helm chart of the same manifests ({@link helmChart}, {@link helmChartOf}).
 * `kubeloop generate` writes these files, and
 * warns about what the declarations may be missing ({@link declarationWarnings}).
 *
 * Not for: defining kinds or their CRDs (`kubeloop/schema`), or applying anything to a cluster.
 *
 * @example
 * ```ts
 * import { Deployment } from "kubeloop";
 * import { controllerPermissions, rbacFor } from "kubeloop/generate";
 *
 * const { roles, bindings } = rbacFor(controllerPermissions({ primary: Deployment, owns: [] }), {
 *   name: "widget-operator",
 *   serviceAccount: { name: "widget-operator", namespace: "widget-system" },
 * });
 * ```
 */

/** Declared by `kubeloop/controller`, where controllers declare what they use; here too, as what {@link rbacFor} reads. */
export type { PermissionRequest, PermissionTarget } from "../controller/index.ts";
export { type AlertRule, alertRules, type RuleGroups } from "./alerts.ts";
export { helmChart } from "./chart.ts";
export { grafanaDashboard } from "./dashboard.ts";
export {
  type DockerfileOptions,
  dockerfile,
  dockerignore,
  kustomization,
  OPERATOR_NODE_FLAGS,
} from "./dockerfile.ts";
export { RbacError } from "./errors.ts";
export {
  CRDS_FILE,
  DEFAULT_RESOURCES,
  type DeploymentOptions,
  deploymentManifest,
  EXTRAS_FILE,
  isLocalImage,
  namespaceManifest,
  type OperatorManifestOptions,
  operatorManifests,
  POD_NAME_ENV,
  POD_NAMESPACE_ENV,
  POD_UID_ENV,
  serviceAccountManifest,
  WEBHOOKS_FILE,
} from "./manifests.ts";
export {
  MONITORING_DIR,
  type MonitoringOptions,
  monitoringFiles,
  prometheusRuleManifest,
  serviceMonitorManifest,
} from "./monitoring.ts";
export {
  declarationsOf,
  declaredPermissions,
  helmChartOf,
  type ManifestOverrides,
  manifestsOf,
  operatorImage,
  permissionsOf,
} from "./operator.ts";
export {
  type ControllerPermissionOptions,
  controllerPermissions,
  eventPermissions,
  leaderElectionPermissions,
  ownPermissions,
  primaryPermissions,
  watchPermissions,
} from "./permissions.ts";
export {
  type RbacObjects,
  type RbacOptions,
  rbacFor,
  rulesFor,
} from "./rbac.ts";
export { metricsAuthRbac, metricsReaderRole, metricsServiceManifest } from "./secure-metrics.ts";
export { userRoles } from "./user-roles.ts";
export { declarationWarnings } from "./warnings.ts";
export {
  type OperatorWebhooks,
  WEBHOOK_CERT_DIR,
  WEBHOOK_PORT,
  type WebhookCertificates,
  type WebhookManifestOptions,
  webhookCaPermissions,
  webhookManifests,
  webhookSecretName,
  webhookServiceManifest,
  withConversions,
} from "./webhooks.ts";
