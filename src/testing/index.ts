/**
 * @module testing
 *
 * Proving an operator against real Kubernetes, not mocks: {@link startProxy}, a fault-injecting
 * proxy in front of a real apiserver (latency, resets, blackholes, 429/500, dropped, duplicated or
 * silenced watch events, request counts by verb), and the conformance kit
 * ({@link runConformance}, `kubeloop verify`) that checks a controller against the principles
 * under those faults; and {@link queryProblems}, whether a dashboard's or an alert's PromQL reads
 * only what an operator's `/metrics` exposes ({@link exposition}, {@link metricReferences}). The
 * local control plane they run against is `kubeloop/cluster`.
 *
 * Not for production code paths.
 *
 * @example
 * ```ts
 * import { startCluster } from "kubeloop/cluster";
 * import { startProxy } from "kubeloop/testing";
 *
 * const cluster = await startCluster();
 * const proxy = await startProxy({ cluster });
 * proxy.inject({ verb: "watch", resource: "configmaps" }, { dropEvents: "all" }); // the watch sees nothing
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
  cacheHeals,
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
export {
  CONVERSION_HOST_ENV,
  type ConversionHost,
  serveConversions,
  webhooksServedInTest,
  whileServingConversions,
} from "./conversions.ts";
export { PromqlSyntaxError, UndeclaredKindsError } from "./errors.ts";
export { type EventuallyOptions, eventually, eventuallyWhile } from "./eventually.ts";
export { type ExposedSeries, exposition, queryProblems, scrapeMetric } from "./metrics.ts";
export { TEST_SESSION_LABEL, type TestScope, testNamespace, testSession } from "./namespace.ts";
export {
  type RunningOperator,
  type StartOperatorOptions,
  startOperator,
  TEST_KUBECONFIG_ENV,
} from "./operator.ts";
export { type MetricReference, metricReferences } from "./promql.ts";
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
