/**
 * Chaos on the local plane, with both reference operators running in this process behind the
 * fault proxy: every watch is silenced (events and bookmarks swallowed, connections kept open, so
 * no inactivity detection fires and no resumption replays them) while LoadTests and ProxyRoutes
 * are created, changed and deleted, and every other request meets 200 ms of latency and 10 % of
 * 500s. What the watches lost only the informers' periodic relist (every 20 s here) can find: after
 * the silence ends, everything must converge within one relist period (plus the work itself under
 * the same faults), with no cache holding a ghost, and kubeloop_cache_divergence_total must count
 * what was missed.
 *
 * The silence lasts `KUBELOOP_CHAOS_SILENCE_MS` (default 20 s, to keep `npm test` short; the full
 * scenario is `KUBELOOP_CHAOS_SILENCE_MS=60000 npx tsx test/run.ts e2e chaos`).
 */
import assert from "node:assert/strict";
import { type TestContext, test } from "node:test";
import pino from "pino";
import { LoadTest, type LoadTestObject } from "../../../operators/loadtest/api.ts";
import loadtestOperator from "../../../operators/loadtest/operator.ts";
import {
  installCrd as installLoadTestCrd,
  conditionOf as loadTestCondition,
  loadTestManifest,
  scriptConfigMap,
} from "../../../operators/loadtest/test/e2e/harness.ts";
import {
  MyProxy,
  type MyProxyObject,
  ProxyRoute,
  type ProxyRouteObject,
} from "../../../operators/myproxy/api.ts";
import myproxyOperator from "../../../operators/myproxy/operator.ts";
import {
  configOf,
  createProxy,
  createRoute,
  createService,
  installCrds as installMyProxyCrds,
  conditionOf as proxyCondition,
  routesIn,
} from "../../../operators/myproxy/test/e2e/support.ts";
import { ConfigMap, type KubeObject, type ResourceType } from "../../../src/api/index.ts";
import type { Manager } from "../../../src/manager/index.ts";
import {
  type FaultProxy,
  startProxy,
  upstreamFromKubeconfig,
  type Verb,
} from "../../../src/testing/index.ts";
import {
  eventually,
  kubeconfigPath,
  onCleanup,
  startManager,
  testClient,
  testNamespace,
} from "../support.ts";

const silenceMs = Number(process.env.KUBELOOP_CHAOS_SILENCE_MS ?? 20_000);
const relistMs = 20_000;
/** What the work itself may take once the caches are right: Jobs run by kwok, requests at 200 ms, retried 500s. */
const workMs = 15_000;
const requestVerbs: Verb[] = [
  "get",
  "list",
  "create",
  "update",
  "patch",
  "delete",
  "deletecollection",
  "other",
];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs a reference operator in a Manager of this process, through the proxy, relisting every 20 s. */
function runOperator(
  t: TestContext,
  operator: { name: string; setup(manager: Manager): void | Promise<void> },
  namespace: string,
  proxy: FaultProxy,
): Promise<Manager> {
  const options = {
    name: operator.name,
    namespace,
    config: { kubeconfig: proxy.kubeconfig() },
    clientOptions: { qps: Number.POSITIVE_INFINITY },
    health: false as const,
    cache: { informer: { relist: { periodMs: relistMs } } },
    // The injected 500s fail reconciles on purpose: their errors are expected.
    logger: pino({ level: process.env.LOG_LEVEL ?? "silent" }),
  };
  return startManager(t, options, (manager) => operator.setup(manager));
}

/** Creates a LoadTest of two one-second workers and, unless `script` is false, its test script. */
async function createLoadTest(namespace: string, name: string, script = true): Promise<void> {
  const client = await testClient();
  if (script) await client.create(ConfigMap, scriptConfigMap(namespace, `${name}-script`));
  const spec = {
    count: 2,
    testScript: { config: { configMap: `${name}-script` } },
    podAnnotations: { "kubeloop.dev/run-duration": "1s" },
  };
  await client.create(LoadTest, loadTestManifest(namespace, name, spec));
}

const completed = (lt: LoadTestObject | undefined) =>
  lt !== undefined &&
  loadTestCondition(lt, "Completed")?.status === "True" &&
  lt.status?.observedGeneration === lt.metadata.generation;

const ready = (obj: MyProxyObject | ProxyRouteObject | undefined) =>
  proxyCondition(obj, "Ready")?.status === "True" &&
  obj?.status?.observedGeneration === obj?.metadata.generation;

/** Names of `type`'s objects in `namespace`, as the apiserver lists them and as `manager`'s cache holds them. */
async function namesSeen(manager: Manager, type: ResourceType, namespace: string) {
  const listed = (await (await testClient()).list(type, { namespace })).items;
  const cached = manager.cache.informer(type).store.list({ namespace });
  const names = (objects: KubeObject[]) => objects.map((o) => o.metadata.name ?? "").sort();
  return { listed: names(listed), cached: names(cached) };
}

/** The sum of kubeloop_cache_divergence_total per kind and change in `manager`'s registry. */
async function divergences(manager: Manager): Promise<Record<string, number>> {
  const metric = manager.metrics.registry.getSingleMetric("kubeloop_cache_divergence_total");
  const values = (await metric?.get())?.values ?? [];
  return Object.fromEntries(values.map((v) => [`${v.labels.kind}:${v.labels.change}`, v.value]));
}

/** What is not converged yet, one line each; empty once everything is. */
async function unconverged(namespace: string, loadtests: Manager, myproxy: Manager): Promise<string[]> {
  const client = await testClient();
  const problems: string[] = [];
  for (const name of ["lt-a", "lt-b", "lt-c"]) {
    const lt = await client.get(LoadTest, name, { namespace }).catch(() => undefined);
    if (!completed(lt)) problems.push(`LoadTest ${name} not Completed`);
  }
  for (const name of ["api", "web", "shop"]) {
    if (!ready(await client.get(ProxyRoute, name, { namespace }).catch(() => undefined)))
      problems.push(`ProxyRoute ${name} not Ready`);
  }
  const edge = await client.get(MyProxy, "edge", { namespace }).catch(() => undefined);
  if (!ready(edge) || edge?.status?.acceptedRoutes !== 3)
    problems.push("MyProxy edge not Ready with 3 routes");
  const config = await configOf(namespace, "edge");
  if (routesIn(config).sort().join() !== "api,shop,web" || !config?.includes("api2.example.com"))
    problems.push("nginx configuration without the three routes and the new api host");
  for (const [manager, type] of [
    [loadtests, LoadTest],
    [myproxy, ProxyRoute],
    [myproxy, MyProxy],
  ] as const) {
    const { listed, cached } = await namesSeen(manager, type, namespace);
    if (listed.join() !== cached.join())
      problems.push(`${type.kind} cache [${cached}] ≠ apiserver [${listed}]`);
  }
  return problems;
}

/** The settled world before the chaos: a finished LoadTest, a MyProxy with two routes. */
async function settledWorld(namespace: string, loadtests: Manager, myproxy: Manager): Promise<void> {
  await createLoadTest(namespace, "before");
  await createService(namespace, "api", [{ port: 8080, name: "http" }]);
  await createService(namespace, "web", [{ port: 80 }]);
  await createProxy(namespace, "edge");
  await createRoute(namespace, "api", {
    proxy: "edge",
    host: "api.example.com",
    service: "api",
    port: "http",
  });
  await createRoute(namespace, "web", { proxy: "edge", host: "www.example.com", service: "web", port: 80 });
  const client = await testClient();
  await eventually(
    async () =>
      completed(await client.get(LoadTest, "before", { namespace })) &&
      ready(await client.get(ProxyRoute, "web", { namespace })) &&
      (await client.get(MyProxy, "edge", { namespace })).status?.acceptedRoutes === 2,
    { what: "the world settled before the chaos", timeoutMs: 120_000, intervalMs: 500 },
  );
  assert.ok(loadtests.ready && myproxy.ready);
}

/** What happens while the watches are silenced: LoadTests created and deleted, ProxyRoutes created and changed. */
async function changeTheWorld(namespace: string, silencedAt: number): Promise<void> {
  const client = await testClient();
  await createLoadTest(namespace, "lt-a");
  await createLoadTest(namespace, "lt-b");
  await createLoadTest(namespace, "lt-c", false);
  await client.delete(LoadTest, "before", { namespace });
  await createRoute(namespace, "shop", { proxy: "edge", host: "shop.example.com", service: "web", port: 80 });
  await sleep(silencedAt + silenceMs / 2 - Date.now());
  await client.create(ConfigMap, scriptConfigMap(namespace, "lt-c-script"));
  await client.patch(ProxyRoute, "api", { spec: { host: "api2.example.com" } }, { type: "merge", namespace });
}

test("every watch silenced while LoadTests and ProxyRoutes change, under 500s and latency: both operators converge within a relist period after the silence", {
  timeout: 600_000,
}, async (t) => {
  await installLoadTestCrd();
  await installMyProxyCrds();
  const namespace = await testNamespace(t);
  const proxy = await startProxy({ upstream: upstreamFromKubeconfig(kubeconfigPath()) });
  onCleanup(t, () => proxy.stop());
  const loadtests = await runOperator(t, loadtestOperator, namespace, proxy);
  const myproxy = await runOperator(t, myproxyOperator, namespace, proxy);
  await settledWorld(namespace, loadtests, myproxy);

  const silence = proxy.inject({ verb: "watch" }, { silence: true });
  const faults = [
    proxy.inject({ verb: requestVerbs }, { latencyMs: 200 }),
    proxy.inject({ verb: requestVerbs, probability: 0.1 }, { status: 500 }),
  ];
  onCleanup(t, () => {
    for (const rule of [silence, ...faults]) rule.remove();
  });
  const silencedAt = Date.now();
  await changeTheWorld(namespace, silencedAt);
  await sleep(silencedAt + silenceMs - Date.now());
  silence.remove();
  const endedAt = Date.now();

  let problems: string[] = [];
  const converged = await eventually(
    async () => {
      problems = await unconverged(namespace, loadtests, myproxy);
      return problems.length === 0 && Date.now();
    },
    { what: "convergence after the silence", timeoutMs: 3 * relistMs + workMs, intervalMs: 500 },
  ).catch((err: Error) => assert.fail(`${err.message}: ${problems.join("; ")}`));
  for (const fault of faults) fault.remove();

  const tookMs = converged - endedAt;
  const lost = proxy
    .requests()
    .filter((r) => r.verb === "watch")
    .reduce((sum, r) => sum + (r.events?.silenced ?? 0), 0);
  const found = { loadtest: await divergences(loadtests), myproxy: await divergences(myproxy) };
  t.diagnostic(
    `silence ${silenceMs / 1000} s: ${lost} watch events lost; converged ${(tookMs / 1000).toFixed(1)} s after it ended; divergences ${JSON.stringify(found)}`,
  );
  assert.ok(lost > 0, "the silence swallowed watch events");
  assert.ok(
    tookMs <= 1.1 * relistMs + workMs,
    `converged within one relist period (+ the work): ${tookMs} ms`,
  );
  const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
  assert.ok(total(found.loadtest) > 0, "the LoadTest operator's relists counted what its watches missed");
  assert.ok(total(found.myproxy) > 0, "myproxy's relists counted what its watches missed");
  assert.ok(
    (found.loadtest["LoadTest:added"] ?? 0) >= 1,
    "a LoadTest created during the silence was found by a relist",
  );
  assert.ok(
    (found.loadtest["LoadTest:deleted"] ?? 0) >= 1,
    "the LoadTest deleted during the silence was found by a relist",
  );
});
