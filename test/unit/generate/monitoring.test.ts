import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parse, parseAllDocuments } from "yaml";
import { type AlertRule, operatorManifests, type RuleGroups } from "../../../src/generate/index.ts";
import { TARGET_LABELS } from "../../../src/generate/queries.ts";
import { METRICS, type MetricDefinition, PROCESS_METRICS } from "../../../src/metrics/index.ts";
import { exposition, queryProblems } from "../../../src/testing/index.ts";
import { metricReferences } from "../../../src/testing/internal/promql.ts";
import { monitoringQueries } from "../../fixtures/monitoring.ts";
import { everySeries } from "../metrics/support.ts";

/** The catalogue's entry of a metric a query selects: by its name, or a histogram's by one of its series'. */
function catalogued(selected: string): MetricDefinition | undefined {
  const family = selected.replace(/_(bucket|sum|count)$/, "");
  return [...Object.values(METRICS), ...Object.values(PROCESS_METRICS)].find(
    ({ name, type }) => name === selected || (name === family && type === "histogram"),
  );
}

/** Grafana's reference to the dashboard's data source variable. */
const DATASOURCE = `\${datasource}`;
const base = { name: "widgets", namespace: "widgets-system", image: "widgets:1", permissions: [] };
const variants = {
  plain: operatorManifests(base),
  webhooks: operatorManifests({ ...base, webhooks: { webhooks: [], certificates: "self" } }),
  sharded: operatorManifests({ ...base, replicas: 3, sharding: { shards: 16 } }),
};
const plain = variants.plain;

interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  datasource?: { uid: string };
  targets?: { refId: string; expr: string; datasource: { uid: string } }[];
}

const dashboardOf = (files: Map<string, string>) =>
  JSON.parse(files.get("monitoring/dashboard.json") ?? "") as {
    uid: string;
    panels: Panel[];
    templating: { list: { name: string; current: { value?: string } }[] };
  };
const rulesOf = (files: Map<string, string>) =>
  parse(files.get("monitoring/alerts.yaml") ?? "") as RuleGroups;
const alertsOf = (files: Map<string, string>): AlertRule[] => rulesOf(files).groups.flatMap((g) => g.rules);

describe("operatorManifests: monitoring files", () => {
  it("writes them under monitoring/, kept out of the deployment's kustomization", () => {
    const monitoring = [...plain.keys()].filter((f) => f.startsWith("monitoring/"));
    assert.deepEqual(monitoring.sort(), [
      "monitoring/alerts.yaml",
      "monitoring/dashboard.json",
      "monitoring/kustomization.yaml",
      "monitoring/prometheusrule.yaml",
      "monitoring/servicemonitor.yaml",
    ]);
    assert.doesNotMatch(plain.get("kustomization.yaml") ?? "", /monitoring|servicemonitor|prometheusrule/);
    const kustomization = parse(plain.get("monitoring/kustomization.yaml") ?? "");
    assert.deepEqual(kustomization.resources, ["servicemonitor.yaml", "prometheusrule.yaml"]);
    assert.deepEqual(kustomization.configMapGenerator[0].files, ["dashboard.json"]);
    assert.deepEqual(kustomization.configMapGenerator[0].options.labels, { grafana_dashboard: "1" });
  });

  it("scrapes the metrics Service the Deployment's pods sit behind, as its job", () => {
    const [monitor] = parseAllDocuments(plain.get("monitoring/servicemonitor.yaml") ?? "").map((d) =>
      d.toJS(),
    );
    const [service] = parseAllDocuments(plain.get("metrics-service.yaml") ?? "").map((d) => d.toJS());
    assert.equal(monitor.kind, "ServiceMonitor");
    assert.equal(monitor.metadata.name, service.metadata.name);
    assert.equal(monitor.metadata.namespace, "widgets-system");
    assert.deepEqual(monitor.spec.selector.matchLabels, service.metadata.labels);
    assert.equal(monitor.spec.endpoints[0].port, service.spec.ports[0].name);
    assert.equal(monitor.spec.endpoints[0].scheme, "https");
  });
});

describe("the Grafana dashboard", () => {
  for (const [variant, files] of Object.entries(variants)) {
    it(`${variant}: unique panel ids, panels on the 24-column grid without overlaps, every query on the $datasource variable`, () => {
      const { panels } = dashboardOf(files);
      assert.equal(new Set(panels.map((p) => p.id)).size, panels.length);
      const cells = new Set<string>();
      for (const { title, gridPos } of panels) {
        assert.ok(gridPos.x >= 0 && gridPos.x + gridPos.w <= 24, `${title} fits the grid`);
        for (let x = gridPos.x; x < gridPos.x + gridPos.w; x++)
          for (let y = gridPos.y; y < gridPos.y + gridPos.h; y++) {
            assert.ok(!cells.has(`${x},${y}`), `${title} overlaps another panel at ${x},${y}`);
            cells.add(`${x},${y}`);
          }
      }
      for (const panel of panels.filter((p) => p.type !== "row")) {
        assert.equal(panel.datasource?.uid, DATASOURCE, panel.title);
        const targets = panel.targets ?? [];
        assert.ok(targets.length > 0, `${panel.title} has queries`);
        assert.equal(
          new Set(targets.map((t) => t.refId)).size,
          targets.length,
          `${panel.title}: unique refIds`,
        );
        for (const target of targets) assert.equal(target.datasource.uid, DATASOURCE);
      }
    });
  }

  it("has the data source, job, namespace and controller variables, the job and namespace defaulting to the operator's", () => {
    const { uid, templating } = dashboardOf(plain);
    assert.equal(uid, "kubeloop-widgets");
    assert.deepEqual(
      templating.list.map((v) => v.name),
      ["datasource", "job", "namespace", "controller"],
    );
    const current = Object.fromEntries(templating.list.map((v) => [v.name, v.current.value]));
    assert.equal(current.job, "widgets-metrics");
    assert.equal(current.namespace, "widgets-system");
  });

  it("shows webhook panels only for an operator with webhooks, and shards instead of the leader when sharded", () => {
    const titles = (files: Map<string, string>) => dashboardOf(files).panels.map((p) => p.title);
    assert.ok(!titles(variants.plain).includes("Webhook requests"));
    assert.ok(titles(variants.webhooks).includes("Webhook requests"));
    assert.ok(titles(variants.plain).includes("Leader"));
    assert.ok(!titles(variants.sharded).includes("Leader"));
    assert.ok(titles(variants.sharded).includes("Shard handovers"));
  });
});

describe("the alert rules", () => {
  it("cover the failure modes: reconcile errors, a queue not draining, an informer not synced, leadership flapping, drift spiking", () => {
    const names = alertsOf(plain).map((r) => r.alert);
    for (const name of [
      "KubeloopReconcileErrors",
      "KubeloopWorkqueueNotDraining",
      "KubeloopInformerNotSynced",
      "KubeloopLeaderFlapping",
      "KubeloopDriftRepairsSpiking",
    ])
      assert.ok(names.includes(name), name);
    assert.ok(alertsOf(variants.webhooks).some((r) => r.alert === "KubeloopWebhookErrors"));
    const sharded = alertsOf(variants.sharded).map((r) => r.alert);
    assert.ok(sharded.includes("KubeloopShardsUnowned") && !sharded.includes("KubeloopLeaderFlapping"));
    assert.match(
      alertsOf(variants.sharded).find((r) => r.alert === "KubeloopShardsUnowned")?.expr ?? "",
      /< 16$/,
    );
  });

  for (const [variant, files] of Object.entries(variants)) {
    it(`${variant}: each has a unique name, a severity, a for: duration, a summary and a description naming what to look at`, () => {
      const rules = alertsOf(files);
      assert.equal(new Set(rules.map((r) => r.alert)).size, rules.length);
      for (const rule of rules) {
        assert.ok(["warning", "critical"].includes(rule.labels.severity), rule.alert);
        assert.equal(rule.labels.operator, "widgets");
        assert.match(rule.for, /^\d+[mh]$/, rule.alert);
        assert.ok(rule.annotations.summary.length > 0, rule.alert);
        assert.match(rule.annotations.description, /Look at: /, rule.alert);
        assert.match(rule.expr, /job="widgets-metrics", namespace="widgets-system"/, rule.alert);
      }
    });
  }

  it("are the same in the rules file and the PrometheusRule", () => {
    const [rule] = parseAllDocuments(plain.get("monitoring/prometheusrule.yaml") ?? "").map((d) => d.toJS());
    assert.equal(rule.apiVersion, "monitoring.coreos.com/v1");
    assert.equal(rule.kind, "PrometheusRule");
    assert.equal(rule.metadata.namespace, "widgets-system");
    assert.deepEqual(rule.spec, rulesOf(plain));
  });
});

describe("every query of the dashboard and the alert rules", () => {
  it("names only metrics of the catalogue, and on each only its labels or those the scrape adds", () => {
    for (const [variant, files] of Object.entries(variants))
      for (const { where, expr } of monitoringQueries(files))
        for (const { metric, labels } of metricReferences(expr)) {
          const entry = catalogued(metric);
          assert.ok(entry, `${variant}, ${where}: ${metric} is not in the metric catalogue (src/metrics)`);
          const allowed = [
            ...entry.labelNames,
            ...TARGET_LABELS,
            ...(entry.type === "histogram" ? ["le"] : []),
          ];
          for (const label of labels)
            assert.ok(allowed.includes(label), `${variant}, ${where}: ${metric} has no label ${label}`);
        }
  });

  it("names metrics and labels a manager registers, each metric with series once its hooks ran", async () => {
    const exposed = exposition(await (await everySeries()).metrics());
    for (const [variant, files] of Object.entries(variants))
      for (const { where, expr } of monitoringQueries(files)) {
        assert.deepEqual(queryProblems(expr, exposed, TARGET_LABELS), [], `${variant}, ${where}: ${expr}`);
        for (const { metric } of metricReferences(expr))
          assert.ok((exposed.get(metric)?.series ?? 0) > 0, `${variant}, ${where}: ${metric} has series`);
      }
  });
});
