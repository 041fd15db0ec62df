/**
 * @module manager
 *
 * Runs controllers. A {@link Manager} owns what its controllers share — one client, one informer
 * cache (one informer per kind and scope), one event recorder, one Prometheus registry — waits
 * for the caches to sync before reconciling, serves `/healthz`, `/readyz` and `/metrics` (with
 * controller-runtime's metric names; in a cluster over HTTPS, only to callers the apiserver
 * authenticates and authorizes, as kubebuilder scaffolds), elects a leader on a Lease when asked
 * (followers keep warm caches; a manager that loses leadership refuses every further write,
 * aborts its reconciles and stops), logs with pino named after the operator (`controller`,
 * `namespace`, `object`, `reconcileID` on every reconcile line; JSON, or readable lines on a
 * terminal), serves the operator's admission and conversion webhooks on every replica (with a
 * certificate of its own and its webhook configurations applied, or one cert-manager issues), and
 * shuts down gracefully on SIGTERM/SIGINT, at once on a second one
 * ({@link runManager}). Outside a cluster it serves a live page for people at `/debug/kubeloop`
 * on the health port (loopback clients only; JSON at `/debug/kubeloop/state.json`, {@link LiveState}).
 *
 * Not a deployment tool: `kubeloop generate` writes the manifests that run a manager in a cluster.
 *
 * @example
 * ```ts
 * const manager = await Manager.create({ name: "widgets", leaderElection: {} });
 * controller(manager).for(Widget).owns(ConfigMap).reconcile(reconcileWidget);
 * await runManager(manager);
 * ```
 */

// Re-exported from where they moved (`kubeloop/endpoints`, `kubeloop/shards`, `kubeloop/webhook`),
// so that `kubeloop/manager` keeps offering what configures a manager.
export {
  type Check,
  type Denial,
  type EndpointsOptions,
  type Guard,
  LIVE_PATH,
  type Listen,
  type LiveCluster,
  type LiveController,
  type LiveDrift,
  type LiveInformer,
  type LiveLeadership,
  type LiveManagerState,
  type LiveReconcile,
  type LiveState,
  MetricsCertificateError,
  type MetricsOptions,
  type ShownFleet,
  serveEndpoints,
} from "../endpoints/index.ts";
export { SHARD_LABEL, type ShardingOptions } from "../shards/index.ts";
export {
  WebhookCaSecretError,
  WebhookConfigurationError,
  type WebhookServingOptions,
  webhookServiceName,
} from "../webhook/index.ts";
export {
  DuplicateControllerError,
  DuplicateRunnableError,
  EndpointFlagError,
  ShardingSetupError,
  TracingSetupError,
} from "./errors.ts";
export {
  type EndpointFlag,
  type EndpointFlagValues,
  endpointFlags,
  endpointOptions,
  parseEndpointFlags,
  parseOperatorFlags,
  shardingFlags,
  shardingOptions,
} from "./flags.ts";
export { createLogger, type LoggerOptions } from "./logger.ts";
export { Manager } from "./manager.ts";
export { ManagerMetrics } from "./metrics.ts";
export type { LeaderElectionOptions, ManagerOptions } from "./options.ts";
export { runManager } from "./run.ts";
export type { Runnable, RunnableContext } from "./runnable.ts";
export { exportTraces, type TraceExport } from "./tracing.ts";
