/**
 * @module metrics
 *
 * The catalogue of the metrics a kubeloop operator exposes on `/metrics`: each declared once with
 * its name, type, help and label names, as controller-runtime and client-go name theirs, plus what
 * kubeloop adds (`kubeloop_*`). The manager and the webhook server register from it; the live page,
 * the generated Grafana dashboard and alert rules, and the conformance kit read it. Write queries
 * of your own against {@link METRICS} too: a metric or label that goes away is then a type error.
 *
 * Not the registry: a manager's is `manager.metrics.registry` (`kubeloop/manager`).
 *
 * @example
 * ```ts
 * const { name } = METRICS.reconcileErrors;
 * const by: LabelOf<typeof METRICS.reconcileErrors> = "controller";
 * const query = `sum by (${by}) (rate(${name}{job="widgets-metrics"}[5m]))`;
 * ```
 */
export {
  CLUSTER_LABEL,
  type LabelOf,
  METRICS,
  type MetricDefinition,
  type MetricLabels,
  type MetricType,
  PROCESS_METRICS,
  promClientConfig,
} from "./catalogue.ts";
