/**
 * The workloads of the sharded-replica scenario (support.ts): 1,000 Widgets of a test operator
 * sharded by uid, whose children are routed by the shard label; and the myproxy reference
 * operator sharded by namespace, serving 512 ProxyRoutes across 32 namespaces.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  MyProxy,
  type MyProxyObject,
  ProxyRoute,
  type ProxyRouteObject,
} from "../../../operators/myproxy/api.ts";
import { Namespace, Service, type ServiceObject } from "../../../src/api/index.ts";
import { inRanges, shardHash, splitHashSpace } from "../../../src/sharding/index.ts";
import { convergedWidgets, installWidgetCrd, Widget, widget } from "../fixtures/widgets.ts";
import { moduleOf } from "./fixtures/operators.ts";
import { forEach, shards, type Workload } from "./support.ts";

const widgetNames = Array.from({ length: 1_000 }, (_, i) => `w${i}`);

/** 1,000 Widgets in the scenario's namespace, each mirrored into a ConfigMap (fixtures/operators.ts), sharded by uid. */
export const widgets: Workload = {
  // A name of its own: its RBAC is cluster-wide on the run's cluster.
  module: ({ namespace }) =>
    moduleOf("shardedWidgets", `sharded-widgets-${randomBytes(3).toString("hex")}`, namespace),
  generate: ["--shard-key=uid"],
  type: Widget,
  mergedKinds: ["Widget", "ConfigMap"],
  keys: ({ namespace }) => widgetNames.map((n) => `widget:${namespace}/${n}`),
  install: ({ kubeconfig }) => installWidgetCrd(kubeconfig),
  async create({ client, namespace }) {
    await forEach(widgetNames, (n) => client.create(Widget, widget(namespace, n, `hello ${n}`)));
  },
  async change({ client, namespace }) {
    await forEach(widgetNames, (n) =>
      client.patch(Widget, n, { spec: { message: `again ${n}` } }, { type: "merge", namespace }),
    );
  },
  async converged({ client, namespace }, changed) {
    const configMaps = await convergedWidgets(client, namespace);
    return widgetNames.every((n) => configMaps.get(n) === `${changed ? "again" : "hello"} ${n}`);
  },
};

/**
 * The namespaces of the myproxy workload, two in each shard: so that each replica's share is that
 * of the shards it holds. A few dozen namespaces hash lumpily, and names differing only in their
 * last characters (`edge-01`, `edge-02`, ...) all land in one shard: the high bits of FNV-1a barely
 * depend on the last bytes.
 */
const proxyNamespaces = spreadNames("edge", 2);
/**
 * The routes of each namespace: 32 × 16 = 512 routes, with 32 MyProxies. The test's measures are
 * shares of events and of the cache, which 512 routes show as well as 1,024 did; at 1,024 this file
 * used 274 s of CPU, the most of any in the suite (a whole e2e run is bound by 2 cores' CPU).
 */
const routeNames = Array.from({ length: 16 }, (_, j) => `r${String(j).padStart(2, "0")}`);
const routes = proxyNamespaces.flatMap((namespace) => routeNames.map((name) => ({ namespace, name })));
/** The number of routes the myproxy workload serves. */
export const routeCount = routes.length;
const pathOf = (name: string, changed: boolean) => `/${changed ? "again-" : ""}${name}`;

/** `perShard` names `<prefix>-<hex>` in each of `count` shards (default the scenario's), by namespace hash. */
export function spreadNames(prefix: string, perShard: number, count = shards): string[] {
  const ranges = splitHashSpace(count);
  const filled = new Map<number, number>();
  const names: string[] = [];
  for (let i = 0; names.length < count * perShard; i++) {
    const name = `${prefix}-${createHash("sha256").update(String(i)).digest("hex").slice(0, 6)}`;
    const shard = ranges.findIndex((range) => inRanges(shardHash(name), [range]));
    const held = filled.get(shard) ?? 0;
    filled.set(shard, held + 1);
    if (held < perShard) names.push(name);
  }
  return names.sort();
}

function proxyRoute(namespace: string, name: string): ProxyRouteObject {
  return {
    apiVersion: ProxyRoute.apiVersion,
    kind: ProxyRoute.kind,
    metadata: { name, namespace },
    spec: {
      proxy: "edge",
      host: `${namespace}.example.com`,
      path: pathOf(name, false),
      backend: { service: "backend", port: 80 },
    },
  };
}

/** Creates a namespace with its MyProxy and backend Service. */
async function proxyNamespace(where: Parameters<Workload["create"]>[0], name: string): Promise<void> {
  const { client } = where;
  await client.create(Namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name } });
  const backend: ServiceObject = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "backend", namespace: name },
    spec: { selector: { app: "backend" }, ports: [{ port: 80 }] },
  };
  const proxy: MyProxyObject = {
    apiVersion: MyProxy.apiVersion,
    kind: MyProxy.kind,
    metadata: { name: "edge", namespace: name },
    // No pods: the scenario is about the operator's own work; its control plane runs no controllers.
    spec: { replicas: 0, nginx: { image: "nginx:1.27.3-alpine", port: 80 } },
  };
  await client.create(Service, backend);
  await client.create(MyProxy, proxy);
}

/** Whether `route` is accepted at its current generation, on the path expected. */
function accepted(route: ProxyRouteObject, changed: boolean): boolean {
  const condition = route.status?.conditions?.find((c) => c.type === "Accepted");
  return (
    route.spec.path === pathOf(route.metadata.name ?? "", changed) &&
    condition?.status === "True" &&
    condition.observedGeneration === route.metadata.generation
  );
}

/**
 * The myproxy reference operator (fixtures/operators.ts) sharded by namespace: 32 namespaces
 * with a MyProxy and 32 ProxyRoutes each. Converged when every route is Accepted (its MyProxy's
 * generated configuration holds it) at its current generation.
 */
export const proxies: Workload = {
  module: () => moduleOf("auditedMyproxy"),
  // The generated default, cert-manager, needs cert-manager: the operator makes its certificate.
  generate: ["--webhook-certs=self"],
  type: ProxyRoute,
  mergedKinds: ["MyProxy", "ProxyRoute"],
  keys: () => routes.map((r) => `proxyroute:${r.namespace}/${r.name}`),
  async create(where) {
    const { client } = where;
    await forEach(proxyNamespaces, (name) => proxyNamespace(where, name));
    await forEach(routes, (r) => client.create(ProxyRoute, proxyRoute(r.namespace, r.name)));
  },
  async change({ client }) {
    await forEach(routes, ({ namespace, name }) =>
      client.patch(ProxyRoute, name, { spec: { path: pathOf(name, true) } }, { type: "merge", namespace }),
    );
  },
  async converged({ client }, changed) {
    const listed = await client.list(ProxyRoute);
    const ok = new Set(
      listed.items
        .filter((r) => accepted(r, changed))
        .map((r) => `${r.metadata.namespace}/${r.metadata.name}`),
    );
    return routes.every((r) => ok.has(`${r.namespace}/${r.name}`));
  },
};
