/**
 * Issue 20's proof for dashboards: every query of the dashboard and the alert rules that
 * `kubeloop generate` writes for the myproxy reference operator names a metric the running operator
 * exposes, and every label it names on one is on that metric's series in a live `/metrics`
 * scrape. The operator runs with leader election and its webhook, through a fault proxy; the test
 * makes it reconcile, fail a reconcile (the proxy answers a child's create with a 500: a quota's
 * refusal is no reconcile error, MyProxy shows it as QuotaExceeded), repair drift and admit a
 * route, so that each metric the queries read has series to check, apart from those only a fault
 * increments.
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { before, test } from "node:test";
import { MyProxy } from "../../../operators/myproxy/api.ts";
import myproxy from "../../../operators/myproxy/operator.ts";
import {
  createProxy,
  createRoute,
  createService,
  installCrds,
  startOperator,
  waitForCondition,
} from "../../../operators/myproxy/test/e2e/support.ts";
import { manifestsOf } from "../../../src/generate/index.ts";
import { TARGET_LABELS } from "../../../src/generate/queries.ts";
import { exposition, queryProblems } from "../../../src/testing/index.ts";
import { metricReferences } from "../../../src/testing/internal/promql.ts";
import { startProxy, upstreamFromKubeconfig } from "../../../src/testing/proxy/index.ts";
import { monitoringQueries } from "../../fixtures/monitoring.ts";
import { eventually, kubeconfigPath, kubectl, onCleanup, testNamespace } from "../support.ts";

before(installCrds);

/**
 * Counters that only a fault increments (a watch the apiserver ends, a relist finding the cache
 * wrong, an informer dying, a request retried, a webhook handler throwing, a terminal error, a reconcile timing out): they
 * may have no series in a healthy run. Their labels are checked in the unit test against a
 * manager's registry.
 */
const faultOnly = new Set([
  "kubeloop_watch_reconnects_total",
  "kubeloop_cache_divergence_total",
  "kubeloop_informer_restarts_total",
  "rest_client_request_retries_total",
  "kubeloop_webhook_handler_failures_total",
  "controller_runtime_terminal_reconcile_errors_total",
  "controller_runtime_reconcile_timeouts_total",
]);

/** What the queries must find before the scrape is checked: one series of each of these. */
const provoked = [
  "controller_runtime_reconcile_errors_total",
  "workqueue_retries_total",
  "kubeloop_drift_repairs_total",
  "controller_runtime_webhook_requests_total",
  "leader_election_master_status",
];

test("every query of the generated dashboard and alert rules reads what the running operator exposes", async (t) => {
  const files = await manifestsOf(myproxy);
  const queries = monitoringQueries(files);
  const namespace = await testNamespace(t);
  const proxy = await startProxy({ upstream: upstreamFromKubeconfig(kubeconfigPath()) });
  onCleanup(t, () => proxy.stop());
  const manager = await startOperator(t, namespace, { leaderElection: true, kubeconfig: proxy.kubeconfig() });
  const scrape = async () =>
    exposition(await (await fetch(`http://127.0.0.1:${manager.ports.metrics}/metrics`)).text());

  await createProxy(namespace, "edge");
  await waitForCondition(MyProxy, namespace, "edge", { type: "Ready", status: "True" });
  await kubectl([
    "-n",
    namespace,
    "patch",
    "configmap",
    "edge-nginx",
    "--type=merge",
    "-p",
    '{"data":{"x":"y"}}',
  ]);
  await createService(namespace, "web", [{ port: 80 }]);
  await createRoute(namespace, "home", { proxy: "edge", host: "example.com", service: "web", port: 80 });
  // No more ConfigMaps created in the namespace: the next MyProxy's reconciles fail, and are retried.
  proxy.inject({ verb: "create", resource: "configmaps", namespace }, { status: 500 });
  await createProxy(namespace, "blocked");

  const exposed = await eventually(
    async () => {
      const now = await scrape();
      const missing = provoked.filter((metric) => !now.get(metric)?.series);
      if (missing.length > 0) throw new Error(`no series yet of ${missing.join(", ")}`);
      return now;
    },
    { what: `series of ${provoked.join(", ")}` },
  );

  for (const { where, expr } of queries)
    assert.deepEqual(queryProblems(expr, exposed, TARGET_LABELS), [], `${where}: ${expr}`);
  const unseen = new Set(
    queries
      .flatMap(({ expr }) => metricReferences(expr).map((r) => r.metric))
      .filter((m) => !exposed.get(m)?.series),
  );
  assert.deepEqual(
    [...unseen].filter((metric) => !faultOnly.has(metric)),
    [],
    "every other metric the queries read has series to check their labels against",
  );
  t.diagnostic(
    `${queries.length} queries checked; without series in this run: ${[...unseen].join(", ") || "none"}`,
  );
});

test("the monitoring kustomization renders the ServiceMonitor, the PrometheusRule and the dashboard's ConfigMap", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "kubeloop-monitoring-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  for (const [file, text] of await manifestsOf(myproxy)) {
    if (!file.startsWith("monitoring/")) continue;
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await writeFile(join(dir, file), text);
  }
  const { stdout } = await kubectl(["kustomize", join(dir, "monitoring")]);
  assert.match(stdout, /^kind: ServiceMonitor$/m);
  assert.match(stdout, /^kind: PrometheusRule$/m);
  assert.match(stdout, /^ {4}grafana_dashboard: "1"$/m);
  assert.match(stdout, /^ {2}name: myproxy-dashboard$/m);
  assert.match(stdout, /"uid": "kubeloop-myproxy"/);
});
