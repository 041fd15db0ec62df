/**
 * @module testing
 *
 * Test support that runs against real Kubernetes, not mocks. {@link startCluster} starts a local
 * control plane (etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok as fake
 * kubelets) built from Go modules once per machine, and returns its kubeconfig and a stop
 * function. Each run has its own PKI, ports and directory, so several clusters can run at once.
 *
 * Not for production clusters: it is the embedded default for tests, demos and benchmarks.
 *
 * @example
 * ```ts
 * import { startCluster } from "kubeloop/testing";
 *
 * const cluster = await startCluster({ nodes: 2 });
 * try {
 *   const { stdout } = await cluster.kubectl(["get", "nodes"]);
 *   console.log(stdout);
 * } finally {
 *   await cluster.stop();
 * }
 * ```
 */

export {
  CheckFailed,
  type CheckFailure,
  type CheckName,
  type CheckOutcome,
  type CheckResult,
  type ConformanceCheck,
  ConformanceError,
  type ConformanceReport,
  type ConformanceSession,
  type ConformanceSpec,
  type ConformanceTimings,
  checkNames,
  conformanceChecks,
  converge,
  crashSafety,
  defaultSettled,
  defaultTimings,
  defineConformance,
  finalizers,
  formatFailure,
  formatReport,
  formatTable,
  generationHonesty,
  idempotent,
  type JsonPatchOperation,
  KIT_FIELD_MANAGER,
  loadConformanceSpec,
  missedEvents,
  notReconcileWrites,
  openSession,
  outputsWatched,
  type RunConformanceOptions,
  runCheck,
  runConformance,
  type SessionOptions,
  selectChecks,
  statusRebuild,
  transientFailures,
  watchExpiry,
} from "./conformance/index.ts";
export { type Assets, cacheRoot, ensureAssets, type ProgressReporter } from "./controlplane/assets.ts";
export {
  type Cluster,
  type ClusterComponents,
  type ClusterOptions,
  type ComponentName,
  type KubectlResult,
  startCluster,
} from "./controlplane/cluster.ts";
export { BuildError, StartError, ToolchainError } from "./controlplane/errors.ts";
export type { KubeconfigDocument } from "./controlplane/kubeconfig.ts";
export type { KeyPair, LeafRequest } from "./controlplane/pki.ts";
export { type ControlPlaneVersions, versions } from "./controlplane/versions.ts";
export { scrapeMetric } from "./metrics.ts";
export {
  type EventSelector,
  type Fault,
  type FaultProxy,
  type KubeconfigSource,
  type Match,
  mutatingVerbs,
  type OneOrMany,
  type ProxyCluster,
  type ProxyClusterOptions,
  type ProxyCommonOptions,
  ProxyConfigError,
  type ProxyOptions,
  ProxyRuleError,
  type ProxyServing,
  type ProxyUpstreamOptions,
  type RequestCounts,
  type RequestRecord,
  type RuleHandle,
  startProxy,
  type UpstreamCredentials,
  upstreamFromKubeconfig,
  type Verb,
  type WatchEventStats,
  type WatchEventType,
} from "./proxy/index.ts";
