/**
 * The silenced-watches scenario, run by the chaos tests at the defaults and with a fast relist:
 * both reference operators run in managers of this process behind the fault proxy; every watch
 * is silenced (events and bookmarks swallowed, connections kept open) while LoadTests and
 * ProxyRoutes are created, changed and deleted and the MyProxy's ConfigMap and Deployment are
 * deleted, and every other request meets 200 ms of latency and 10 % of 500s. Then the silence
 * ends, and everything must converge, with no cache holding a ghost and no MyProxy `Ready` while
 * its ConfigMap or Deployment is missing.
 */
import type { TestContext } from "node:test";
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
import { configMapName } from "../../../operators/myproxy/deployment.ts";
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
import { ConfigMap, Deployment, type KubeObject, type ResourceType } from "../../../src/api/index.ts";
import type { Manager, ManagerOptions } from "../../../src/manager/index.ts";
import {
  type FaultProxy,
  startProxy,
  upstreamFromKubeconfig,
  type Verb,
} from "../../../src/testing/proxy/index.ts";
import {
  eventually,
  kubeconfigPath,
  onCleanup,
  startManager,
  testClient,
  testNamespace,
} from "../support.ts";

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

/** How a run goes: how long the silence lasts, how long convergence may take after it, and the managers' cache settings. */
export interface ScenarioOptions {
  silenceMs: number;
  /** From the end of the silence. */
  convergeWithinMs: number;
  /** The managers' `cache` option; the defaults when absent. */
  cache?: ManagerOptions["cache"];
}

/** What a run measured. */
export interface ScenarioFigures {
  /** Watch events the silence swallowed. */
  lost: number;
  /** From the end of the silence until everything had converged. */
  convergedMs: number;
  /** From the end of the silence until the MyProxy was last seen `Ready` without its ConfigMap or Deployment (0: never). */
  falselyReadyMs: number;
  /** `kubeloop_cache_divergence_total` per `kind:change`, of each manager. */
  divergences: { loadtest: Record<string, number>; myproxy: Record<string, number> };
  /** Watches of both managers resumed from before a gap (`kubeloop_watch_reconnects_total{reason="gap"}`). */
  gapResumes: number;
}

/** Runs a reference operator in a Manager of this process, through the proxy. */
function runOperator(
  t: TestContext,
  operator: { name: string; setup(manager: Manager): void | Promise<void> },
  namespace: string,
  proxy: FaultProxy,
  cache: ManagerOptions["cache"],
): Promise<Manager> {
  const options = {
    name: operator.name,
    namespace,
    config: { kubeconfig: proxy.kubeconfig() },
    health: false as const,
    ...(cache ? { cache } : {}),
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

/** The sum of `name`'s samples per `kind:label` in `manager`'s registry. */
async function counted(manager: Manager, name: string, label: string): Promise<Record<string, number>> {
  const values = (await manager.metrics.registry.getSingleMetric(name)?.get())?.values ?? [];
  const sums: Record<string, number> = {};
  for (const v of values) {
    const key = `${v.labels.kind}:${v.labels[label]}`;
    sums[key] = (sums[key] ?? 0) + v.value;
  }
  return sums;
}

/** True while the MyProxy `edge` says `Ready` although its ConfigMap or Deployment does not exist. */
async function falselyReady(namespace: string): Promise<boolean> {
  const client = await testClient();
  const gone = (type: ResourceType, name: string) =>
    client.get(type, name, { namespace }).then(
      () => false,
      () => true,
    );
  const edge = await client.get(MyProxy, "edge", { namespace }).catch(() => undefined);
  const missing = (await gone(ConfigMap, configMapName("edge"))) || (await gone(Deployment, "edge"));
  return proxyCondition(edge, "Ready")?.status === "True" && missing;
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
  const deployment = await client.get(Deployment, "edge", { namespace }).catch(() => undefined);
  if (!deployment?.status?.availableReplicas) problems.push("Deployment edge missing or not available");
  const config = await configOf(namespace, "edge");
  if (routesIn(config).sort().join() !== "api,shop,web" || !config?.includes("api2.example.com"))
    problems.push("nginx configuration without the three routes and the new api host");
  for (const [manager, type] of [
    [loadtests, LoadTest],
    [myproxy, ProxyRoute],
    [myproxy, MyProxy],
    [myproxy, Deployment],
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
      (await client.get(MyProxy, "edge", { namespace })).status?.acceptedRoutes === 2 &&
      loadtests.ready &&
      myproxy.ready,
    { what: "the world settled before the chaos", timeoutMs: 120_000, intervalMs: 500 },
  );
}

/**
 * What happens while the watches are silenced: LoadTests created and deleted, ProxyRoutes created
 * and changed, the MyProxy's ConfigMap and Deployment deleted.
 */
async function changeTheWorld(namespace: string, silencedAt: number, silenceMs: number): Promise<void> {
  const client = await testClient();
  await createLoadTest(namespace, "lt-a");
  await createLoadTest(namespace, "lt-b");
  await createLoadTest(namespace, "lt-c", false);
  await client.delete(LoadTest, "before", { namespace });
  await createRoute(namespace, "shop", { proxy: "edge", host: "shop.example.com", service: "web", port: 80 });
  await client.delete(ConfigMap, configMapName("edge"), { namespace });
  await client.delete(Deployment, "edge", { namespace });
  await sleep(silencedAt + silenceMs / 2 - Date.now());
  await client.create(ConfigMap, scriptConfigMap(namespace, "lt-c-script"));
  await client.patch(ProxyRoute, "api", { spec: { host: "api2.example.com" } }, { type: "merge", namespace });
}

/**
 * Runs the scenario and measures it; rejects, naming what was left, when it did not converge
 * within `convergeWithinMs` of the end of the silence.
 */
export async function silencedWatches(t: TestContext, options: ScenarioOptions): Promise<ScenarioFigures> {
  const { silenceMs, convergeWithinMs, cache } = options;
  await installLoadTestCrd();
  await installMyProxyCrds();
  const namespace = await testNamespace(t);
  const proxy = await startProxy({ upstream: upstreamFromKubeconfig(kubeconfigPath()) });
  onCleanup(t, () => proxy.stop());
  const loadtests = await runOperator(t, loadtestOperator, namespace, proxy, cache);
  const myproxy = await runOperator(t, myproxyOperator, namespace, proxy, cache);
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
  await changeTheWorld(namespace, silencedAt, silenceMs);
  await sleep(silencedAt + silenceMs - Date.now());
  silence.remove();
  const endedAt = Date.now();

  let problems: string[] = [];
  let falselyReadyAt = endedAt;
  const converged = await eventually(
    async () => {
      if (await falselyReady(namespace)) falselyReadyAt = Date.now();
      problems = await unconverged(namespace, loadtests, myproxy);
      return problems.length === 0 && Date.now();
    },
    { what: "convergence after the silence", timeoutMs: convergeWithinMs, intervalMs: 500 },
  ).catch((err: Error) => {
    throw new Error(`${err.message}: ${problems.join("; ")}`);
  });
  for (const fault of faults) fault.remove();

  const lost = proxy
    .requests()
    .filter((r) => r.verb === "watch")
    .reduce((sum, r) => sum + (r.events?.silenced ?? 0), 0);
  const gaps = [
    ...Object.entries(await counted(loadtests, "kubeloop_watch_reconnects_total", "reason")),
    ...Object.entries(await counted(myproxy, "kubeloop_watch_reconnects_total", "reason")),
  ].filter(([key]) => key.endsWith(":gap"));
  return {
    lost,
    convergedMs: converged - endedAt,
    falselyReadyMs: falselyReadyAt - endedAt,
    divergences: {
      loadtest: await counted(loadtests, "kubeloop_cache_divergence_total", "change"),
      myproxy: await counted(myproxy, "kubeloop_cache_divergence_total", "change"),
    },
    gapResumes: gaps.reduce((sum, [, n]) => sum + n, 0),
  };
}

/** A one-line account of a run, for `t.diagnostic`. */
export function describeRun(silenceMs: number, figures: ScenarioFigures): string {
  const s = (ms: number) => (ms / 1000).toFixed(1);
  return (
    `silence ${s(silenceMs)} s: ${figures.lost} watch events lost; converged ${s(figures.convergedMs)} s ` +
    `after it ended; falsely Ready until ${s(figures.falselyReadyMs)} s after it; ${figures.gapResumes} watches ` +
    `resumed from before the gap; divergences ${JSON.stringify(figures.divergences)}`
  );
}
