/**
 * @module endpoints
 *
 * A manager's HTTP endpoints: `/healthz` and `/readyz` (plain HTTP, for the kubelet's probes),
 * `/metrics` (Prometheus; in a cluster over HTTPS, only to callers the apiserver authenticates
 * and authorizes, as kubebuilder scaffolds), and the live page for people at `/debug/kubeloop`
 * on the health port (loopback clients only; JSON at `/debug/kubeloop/state.json`, {@link LiveState}).
 *
 * Not for: running controllers (`kubeloop/manager`, which starts these endpoints with its checks
 * and registry), nor serving webhooks (`kubeloop/webhook`).
 *
 * @example
 * ```ts
 * const { server, port } = await serveEndpoints("127.0.0.1", 8081, {
 *   health: { healthz: { ping: () => true }, readyz: { "caches-synced": synced } },
 *   metrics: registry,
 * });
 * ```
 */

export {
  type EndpointOptions,
  type Listen,
  type MetricsOptions,
  resolveEndpoints,
  runningInCluster,
  startEndpoints,
} from "./endpoints.ts";
export { MetricsCertificateError } from "./errors.ts";
export { controllersAlive, informersAlive, informersSynced } from "./health.ts";
export {
  LIVE_PATH,
  type LiveCluster,
  type LiveController,
  type LiveDrift,
  type LiveInformer,
  type LiveLeadership,
  type LiveManagerState,
  type LiveReconcile,
  type LiveSource,
  type LiveState,
  leadershipOf,
  liveState,
  type ShownFleet,
} from "./live.ts";
export { type Check, type Denial, type EndpointsOptions, type Guard, serveEndpoints } from "./server.ts";
