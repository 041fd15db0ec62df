/**
 * The cost of one periodic relist of an informer (`src/cache/internal/relist.ts`): a consistent
 * (quorum) list of the whole scope in pages of 500, compared with a store holding the same objects,
 * as the informer does. Measured on the local control plane (etcd and kube-apiserver only, so no
 * other client adds load), at each size N in its own namespace of N ConfigMaps with 1 KiB of data:
 *
 * - wall time of the relist (all pages, and the comparison);
 * - CPU of kube-apiserver and of etcd (`/proc/<pid>/stat` user + system, before and after, minus
 *   what they burn idle over the same time, measured just before);
 * - CPU of this process (`process.cpuUsage()`): requests, JSON parsing and the comparison;
 * - bytes of the LIST responses (`apiserver_response_sizes` of the apiserver);
 * - where the pages were served from: `apiserver_cache_list_total` (the watch cache) and
 *   `apiserver_storage_list_total` (etcd); `apiserver_watch_cache_consistent_read_total` counts the
 *   consistent reads the cache served (Kubernetes ≥ 1.31, `ConsistentListFromCache`, GA and locked on
 *   since 1.34; later pages come from the cache's snapshots, `ListFromCacheSnapshot`, beta since 1.34).
 *
 * Then the cost per hour of one informer of a kind of that size at candidate relist periods.
 *
 * Usage: `npx tsx bench/relist.ts [N...]` (default 5000 50000); `RELISTS` relists per size (default 5).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { ConfigMap, type KubeObject, Namespace } from "../src/api/index.ts";
import { createStore } from "../src/cache/index.ts";
import { ListComparison } from "../src/cache/internal/relist.ts";
import { Client, loadKubeconfig } from "../src/client/index.ts";
import { type Cluster, startCluster } from "../src/cluster/index.ts";
import { fmt, loadLine, machineLine, median, table, writeResult } from "./support/report.ts";

const sizes = process.argv.slice(2).map(Number);
const counts = sizes.length > 0 ? sizes : [5_000, 50_000];
const relists = Number(process.env.RELISTS ?? 5);
const periodsMin = [30, 10, 5, 4];
const ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim());
const data = { payload: "x".repeat(1024) };

/** CPU time (user + system) of a process so far, in ms. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}

/** The sum of the series of `name` in a /metrics text whose line contains every filter. */
function metric(text: string, name: string, ...filters: string[]): number {
  return text
    .split("\n")
    .filter((line) => line.startsWith(name) && filters.every((f) => line.includes(f)))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(" ") + 1)), 0);
}

/** What the apiserver counted so far about LISTs of ConfigMaps: bytes answered, and where they were served from. */
async function listCounters(cluster: Cluster) {
  const { stdout } = await cluster.kubectl(["get", "--raw", "/metrics"], { timeoutMs: 60_000 });
  const configmaps = 'resource="configmaps"';
  return {
    bytes: metric(stdout, "apiserver_response_sizes_sum", configmaps, 'verb="LIST"'),
    fromCache: metric(stdout, "apiserver_cache_list_total", configmaps),
    fromEtcd: metric(stdout, "apiserver_storage_list_total", configmaps),
    consistentFromCache: metric(
      stdout,
      "apiserver_watch_cache_consistent_read_total",
      configmaps,
      'success="true"',
      'fallback="false"',
    ),
  };
}

/** Creates `count` ConfigMaps in `namespace`, 64 requests in flight. */
async function populate(client: Client, namespace: string, count: number): Promise<void> {
  await client.create(Namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const name = `cm-${String(i).padStart(6, "0")}`;
      await client.create(ConfigMap, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name, namespace, labels: { app: "relist-bench", shard: String(i % 16) } },
        data,
      });
    }
  };
  await Promise.all(Array.from({ length: 64 }, worker));
}

function difference<T extends Record<string, number>>(after: T, before: T): T {
  return Object.fromEntries(Object.entries(after).map(([k, v]) => [k, v - (before[k] ?? 0)])) as T;
}

interface Sample {
  wallMs: number;
  apiserverMs: number;
  etcdMs: number;
  processMs: number;
  bytes: number;
  fromCache: number;
  fromEtcd: number;
  consistentFromCache: number;
}

/** One relist as the informer does it: consistent pages of 500, each compared with the store. */
async function relist(client: Client, namespace: string, store: ReturnType<typeof createStore<KubeObject>>) {
  const comparison = new ListComparison(store.reader);
  let page: Awaited<ReturnType<Client["listPage"]>> | undefined;
  do {
    page = await client.listPage(ConfigMap, { namespace, limit: 500, continue: page?.continue });
    comparison.page(page.items, page.resourceVersion);
  } while (page.continue);
  const found = comparison.divergences("all");
  if (found.length > 0) throw new Error(`${found.length} divergences in a quiet namespace`);
}

async function measure(cluster: Cluster, client: Client, count: number): Promise<Sample[]> {
  const namespace = `relist-${count}`;
  const t0 = performance.now();
  await populate(client, namespace, count);
  console.error(`created ${fmt(count)} ConfigMaps in ${fmt((performance.now() - t0) / 1000, 1)} s`);
  const store = createStore<KubeObject>();
  for (const item of (await client.list(ConfigMap, { namespace })).items) store.writer.apply(item);
  const pids = cluster.pids();
  const apiserver = pids["kube-apiserver"] as number;
  const etcd = pids.etcd as number;
  const samples: Sample[] = [];
  for (let i = 0; i < relists; i++) {
    // What the two servers burn idle (probes, leases, compaction) over 5 s, subtracted below.
    const idle = { apiserver: cpuMs(apiserver), etcd: cpuMs(etcd), at: performance.now() };
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const idleMs = performance.now() - idle.at;
    const idleRate = {
      apiserver: (cpuMs(apiserver) - idle.apiserver) / idleMs,
      etcd: (cpuMs(etcd) - idle.etcd) / idleMs,
    };
    const counters = await listCounters(cluster);
    const before = {
      apiserver: cpuMs(apiserver),
      etcd: cpuMs(etcd),
      process: process.cpuUsage(),
      at: performance.now(),
    };
    await relist(client, namespace, store);
    const wallMs = performance.now() - before.at;
    const cpu = process.cpuUsage(before.process);
    const sample = {
      wallMs,
      apiserverMs: cpuMs(apiserver) - before.apiserver - idleRate.apiserver * wallMs,
      etcdMs: cpuMs(etcd) - before.etcd - idleRate.etcd * wallMs,
      processMs: (cpu.user + cpu.system) / 1000,
      ...difference(await listCounters(cluster), counters),
    };
    console.error(
      `N=${count} relist ${i + 1}: ${JSON.stringify(sample, (_, v) => (typeof v === "number" ? Math.round(v) : v))}`,
    );
    samples.push(sample);
  }
  await client.delete(Namespace, namespace);
  return samples;
}

const cluster = await startCluster({
  components: { controllerManager: false, scheduler: false, kwok: false },
  report: () => {},
});
const results: Record<number, Record<keyof Sample, number>> = {};
try {
  const client = new Client(await loadKubeconfig({ kubeconfig: cluster.kubeconfigPath }), {
    qps: Number.POSITIVE_INFINITY,
  });
  for (const count of counts) {
    const samples = await measure(cluster, client, count);
    const med = (key: keyof Sample) => median(samples.map((s) => s[key]));
    results[count] = {
      wallMs: med("wallMs"),
      apiserverMs: med("apiserverMs"),
      etcdMs: med("etcdMs"),
      processMs: med("processMs"),
      bytes: med("bytes"),
      fromCache: med("fromCache"),
      fromEtcd: med("fromEtcd"),
      consistentFromCache: med("consistentFromCache"),
    };
  }
  await client.close();
} finally {
  await cluster.stop();
}

console.log(machineLine());
console.log(loadLine());
console.log(`\nOne relist (consistent list in pages of 500 + comparison), median of ${relists}:\n`);
console.log(
  table(
    [
      "objects",
      "wall",
      "apiserver CPU",
      "etcd CPU",
      "process CPU",
      "bytes",
      "pages served by watch cache / etcd",
    ],
    counts.map((n) => {
      const r = results[n] as Record<keyof Sample, number>;
      return [
        fmt(n),
        `${fmt(r.wallMs)} ms`,
        `${fmt(r.apiserverMs)} ms`,
        `${fmt(r.etcdMs)} ms`,
        `${fmt(r.processMs)} ms`,
        `${fmt(r.bytes / 2 ** 20, 1)} MiB`,
        `${fmt(r.fromCache)} (${fmt(r.consistentFromCache)} consistent reads) / ${fmt(r.fromEtcd)}`,
      ];
    }),
  ),
);
console.log("\nPer informer of a kind that size, per hour (CPU as % of one core):\n");
console.log(
  table(
    ["objects", ...periodsMin.map((p) => `every ${p} min`)],
    counts.map((n) => {
      const r = results[n] as Record<keyof Sample, number>;
      return [
        fmt(n),
        ...periodsMin.map((p) => {
          const perHour = 60 / p;
          const core = (ms: number) => fmt((100 * ms * perHour) / 3_600_000, 2);
          return `apiserver ${core(r.apiserverMs)} %, process ${core(r.processMs)} %, ${fmt((r.bytes * perHour) / 2 ** 20)} MiB`;
        }),
      ];
    }),
  ),
);
writeResult("relist", { relists, results });
process.exit(0);
