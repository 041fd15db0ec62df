/**
 * MyProxy at scale: one MyProxy with N ProxyRoutes (default 2,000) on the local control plane.
 * Measures, in the same run:
 *
 * - **converge**: the operator starts with the MyProxy, 20 Services and N routes already stored,
 *   and the clock runs until every route reports `Accepted=True` and the MyProxy's status counts
 *   N accepted routes;
 * - **update**: every route's path changes at once; the clock runs until every route is accepted at
 *   its new generation and the MyProxy counts N again;
 * - **writes alone** (the baseline): the writes that work needs, sent by a plain client with the
 *   route controller's concurrency (`ROUTE_CONCURRENCY`) on an identical namespace: one `/status` patch per route,
 *   the configuration ConfigMap and the MyProxy's status; observed meanwhile exactly as the
 *   operator's work is (a list of the routes and a get of the MyProxy every 500 ms), so the
 *   observer's cost, in this process and in the apiserver, is on both sides of the ratio.
 *
 * The figure is converge ÷ writes alone (goal ≤ 1.5, issue 15). Also the operator's CPU seconds.
 * Usage: `npx tsx bench/myproxy-routes.ts [routes=2000]`.
 */
import { pino } from "pino";
import { MyProxy, ProxyRoute, type ProxyRouteObject } from "../operators/myproxy/api.ts";
import operator from "../operators/myproxy/operator.ts";
import { ROUTE_CONCURRENCY } from "../operators/myproxy/route-controller.ts";
import { ConfigMap, Namespace, Service } from "../src/api/index.ts";
import { Client, loadKubeconfig } from "../src/client/index.ts";
import { startCluster } from "../src/cluster/index.ts";
import { Manager } from "../src/manager/index.ts";
import { installCrds } from "../src/operator/index.ts";
import { fmt, loadLine, machineLine, table, timed, writeResult } from "./support/report.ts";

const routes = Number(process.argv[2] ?? 2000);
const services = 20;
const pollMs = 500;

/** The MyProxy `edge`, its Services and `routes` routes, each to one of the Services, in `namespace`. */
async function seed(client: Client, namespace: string): Promise<void> {
  await client.create(Namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
  await client.create(MyProxy, {
    apiVersion: MyProxy.apiVersion,
    kind: MyProxy.kind,
    metadata: { name: "edge", namespace },
    spec: { replicas: 1 },
  } as never);
  for (let i = 0; i < services; i++) {
    await client.create(Service, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: `svc-${i}`, namespace },
      spec: { ports: [{ name: "http", port: 80 }] },
    });
  }
  await inParallel(routes, 16, (i) => client.create(ProxyRoute, route(namespace, i, "v1")));
}

function route(namespace: string, i: number, version: string): ProxyRouteObject {
  return {
    apiVersion: ProxyRoute.apiVersion,
    kind: ProxyRoute.kind,
    metadata: { name: `r-${i}`, namespace },
    spec: {
      proxy: "edge",
      host: `h${i % 100}.example.com`,
      path: `/${version}/r${i}`,
      backend: { service: `svc-${i % services}`, port: 80 },
    },
  } as ProxyRouteObject;
}

/** Runs `task(0..count-1)` with at most `width` at once. */
async function inParallel(
  count: number,
  width: number,
  task: (i: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

/** True once every route of `namespace` is accepted at its generation and the MyProxy counts them all. */
async function converged(client: Client, namespace: string): Promise<boolean> {
  const { items } = await client.list(ProxyRoute, { namespace });
  const accepted = items.filter((r) =>
    (r.status?.conditions ?? []).some(
      (c) => c.type === "Accepted" && c.status === "True" && c.observedGeneration === r.metadata.generation,
    ),
  );
  const proxy = await client.get(MyProxy, "edge", { namespace });
  return accepted.length === routes && proxy.status?.acceptedRoutes === routes;
}

async function untilConverged(client: Client, namespace: string): Promise<void> {
  while (!(await converged(client, namespace))) await new Promise((r) => setTimeout(r, pollMs));
}

/** Settles with `work`, polling `namespace` as {@link untilConverged} does until then. */
async function whileObserved(client: Client, namespace: string, work: Promise<void>): Promise<void> {
  let done = false;
  const finished = work.finally(() => {
    done = true;
  });
  while (!done) {
    await converged(client, namespace);
    await Promise.race([finished, new Promise((r) => setTimeout(r, pollMs))]);
  }
  await finished;
}

/** The writes alone: a `/status` patch per route (as many at once as the route controller), the ConfigMap and the MyProxy's status. */
async function writesAlone(client: Client, namespace: string, configSize: number): Promise<void> {
  const now = new Date().toISOString();
  await inParallel(routes, ROUTE_CONCURRENCY, (i) => {
    const condition = {
      type: "Accepted",
      status: "True",
      reason: "Accepted",
      message: "in the configuration",
      lastTransitionTime: now,
      observedGeneration: 1,
    };
    const ready = { ...condition, type: "Ready" };
    return client.status.patch(
      ProxyRoute,
      `r-${i}`,
      {
        status: {
          conditions: [condition, ready],
          upstream: `http://svc-${i % services}.${namespace}.svc.cluster.local:80`,
        },
      },
      { namespace, type: "merge" },
    );
  });
  const data = { "default.conf": "#".repeat(configSize) };
  await client.apply(
    ConfigMap,
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "edge-nginx", namespace },
      data,
    },
    { force: true, fieldManager: "bench" },
  );
  await client.status.patch(
    MyProxy,
    "edge",
    { status: { acceptedRoutes: routes } },
    { namespace, type: "merge" },
  );
}

async function main(): Promise<void> {
  const cluster = await startCluster({ nodes: 1 });
  const client = new Client(await loadKubeconfig({ kubeconfig: cluster.kubeconfigPath }), {
    qps: Number.POSITIVE_INFINITY,
  });
  try {
    await installCrds(client, operator.kinds);
    await seed(client, "bench-operator");
    await seed(client, "bench-writes");
    const manager = await Manager.create({
      name: operator.name,
      client,
      namespace: "bench-operator",
      logger: pino({ level: "warn" }),
      metrics: false,
      health: false,
      leaderElection: false,
    });
    await operator.setup(manager);
    const stop = new AbortController();
    const cpu0 = process.cpuUsage();
    const running = manager.start(stop.signal);
    const converge = await timed(() => untilConverged(client, "bench-operator"));
    await inParallel(routes, 16, (i) =>
      client.patch(
        ProxyRoute,
        `r-${i}`,
        { spec: { path: `/v2/r${i}` } },
        { namespace: "bench-operator", type: "merge" },
      ),
    );
    const update = await timed(() => untilConverged(client, "bench-operator"));
    const cpu = process.cpuUsage(cpu0);
    stop.abort();
    await running;
    const config = await client.get(ConfigMap, "edge-nginx", { namespace: "bench-operator" });
    const size = (config.data?.["default.conf"] ?? "").length;
    const alone = await timed(() =>
      whileObserved(client, "bench-writes", writesAlone(client, "bench-writes", size)),
    );
    const rows = [
      ["converge after start", fmt(converge / 1000, 1), fmt(converge / alone, 2)],
      ["converge after updating every route", fmt(update / 1000, 1), fmt(update / alone, 2)],
      ["the writes alone", fmt(alone / 1000, 1), "1.00"],
    ];
    console.log(
      `MyProxy with ${routes} routes (configuration ${fmt(size / 1024)} KiB); ${machineLine()}; ${loadLine()}`,
    );
    console.log(table(["", "seconds", "÷ writes alone (goal ≤ 1.5)"], rows));
    console.log(`process CPU during converge and update: ${fmt((cpu.user + cpu.system) / 1e6, 1)} s`);
    writeResult("myproxy-routes", {
      routes,
      convergeMs: converge,
      updateMs: update,
      writesAloneMs: alone,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      configBytes: size,
    });
  } finally {
    await client.close();
    await cluster.stop();
  }
}

await main();
