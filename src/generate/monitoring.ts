/**
 * Monitoring files for an operator, in `monitoring/` beside its deployment: a Grafana dashboard,
 * alert rules as a Prometheus rules file, and, for a cluster with the Prometheus Operator, a
 * ServiceMonitor scraping its secure metrics, the same rules as a PrometheusRule and a
 * kustomization that adds the dashboard as a ConfigMap a Grafana sidecar loads. Kept out of the
 * deployment's kustomization: the Prometheus Operator's kinds may not exist in the cluster.
 */
import type { KubeObject } from "../api/index.ts";
import { toYaml } from "../schema/index.ts";
import { alertRules, type RuleGroups } from "./alerts.ts";
import { grafanaDashboard } from "./dashboard.ts";

/** The folder of the monitoring files, under the output directory of `kubeloop generate`. */
export const MONITORING_DIR = "monitoring";

/** What the dashboard and the alert rules are made for. */
export interface MonitoringOptions {
  /** The operator's name. */
  readonly name: string;
  /** The namespace it runs in: the `namespace` label of its series. */
  readonly namespace: string;
  /** The `job` label of its series: a ServiceMonitor's is the Service's name (`<name>-metrics`). */
  readonly job: string;
  /** It serves webhooks: add their panels and alert. */
  readonly webhooks?: boolean;
  /** It shards its controllers across replicas: shard panels and alerts instead of leader election's. */
  readonly sharded?: { readonly shards: number };
}

const prometheusOperatorApi = "monitoring.coreos.com/v1";

/**
 * The ServiceMonitor `<job>` scraping the operator's metrics Service (port `https`, selected by
 * `labels`) as kubebuilder's `config/prometheus/monitor.yaml` does: with the Prometheus
 * ServiceAccount's token (bind it to the `<name>-metrics-reader` ClusterRole) and without verifying
 * the manager's self-signed certificate.
 */
export function serviceMonitorManifest(
  options: MonitoringOptions,
  labels: Record<string, string>,
): KubeObject & { spec: object } {
  return {
    apiVersion: prometheusOperatorApi,
    kind: "ServiceMonitor",
    metadata: { name: options.job, namespace: options.namespace, labels },
    spec: {
      selector: { matchLabels: labels },
      endpoints: [
        {
          port: "https",
          scheme: "https",
          path: "/metrics",
          bearerTokenFile: "/var/run/secrets/kubernetes.io/serviceaccount/token",
          tlsConfig: { insecureSkipVerify: true },
        },
      ],
    },
  };
}

/** The PrometheusRule `<name>-alerts` holding {@link alertRules}. */
export function prometheusRuleManifest(
  options: MonitoringOptions,
  labels: Record<string, string>,
): KubeObject & { spec: RuleGroups } {
  return {
    apiVersion: prometheusOperatorApi,
    kind: "PrometheusRule",
    metadata: { name: `${options.name}-alerts`, namespace: options.namespace, labels },
    spec: alertRules(options),
  };
}

/** `monitoring/kustomization.yaml`: the ServiceMonitor, the PrometheusRule, and the dashboard as a ConfigMap labelled `grafana_dashboard: "1"`. */
function monitoringKustomization(options: MonitoringOptions): string {
  return toYaml([
    {
      apiVersion: "kustomize.config.k8s.io/v1beta1",
      kind: "Kustomization",
      resources: ["servicemonitor.yaml", "prometheusrule.yaml"],
      configMapGenerator: [
        {
          name: `${options.name}-dashboard`,
          namespace: options.namespace,
          files: ["dashboard.json"],
          options: { labels: { grafana_dashboard: "1" }, disableNameSuffixHash: true },
        },
      ],
    },
  ]);
}

/**
 * The monitoring files by path under the output directory: `monitoring/dashboard.json` (Grafana),
 * `monitoring/alerts.yaml` (a Prometheus rules file), `monitoring/servicemonitor.yaml`,
 * `monitoring/prometheusrule.yaml` and `monitoring/kustomization.yaml` (the Prometheus Operator's,
 * `kubectl apply -k`). `labels` are the operator's pod labels, which its metrics Service carries.
 *
 * @example
 * ```ts
 * monitoringFiles(
 *   { name: "widgets", namespace: "widgets", job: "widgets-metrics" },
 *   { "app.kubernetes.io/name": "widgets" },
 * );
 * ```
 */
export function monitoringFiles(
  options: MonitoringOptions,
  labels: Record<string, string>,
): Map<string, string> {
  const file = (name: string) => `${MONITORING_DIR}/${name}`;
  return new Map([
    [file("dashboard.json"), `${JSON.stringify(grafanaDashboard(options), null, 2)}\n`],
    [file("alerts.yaml"), toYaml([alertRules(options)])],
    [file("servicemonitor.yaml"), toYaml([serviceMonitorManifest(options, labels)])],
    [file("prometheusrule.yaml"), toYaml([prometheusRuleManifest(options, labels)])],
    [file("kustomization.yaml"), monitoringKustomization(options)],
  ]);
}
