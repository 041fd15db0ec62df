/**
 * Sharded controllers across replicas: what one replica costs when 1, 2 or 4 share N Widgets (each
 * owning a ConfigMap made with `ensureChild`) over 32 virtual shards by uid — per replica: CPU
 * seconds from its manager's start (not loading the sources) and CPU per object it reconciled, resident memory and V8 heap, watch events and bytes
 * received; for the run: converge time from the replicas' start (the Widgets exist already), and
 * the handover after one replica is killed with SIGKILL (until every Widget it had reconciled was
 * reconciled again by another). The same on a control plane whose apiserver has the
 * `ShardedListAndWatch` gate off, where the Widgets are placed by the shard label (their hash
 * bucket, set by their shard's holder at first start) and each replica watches its shards' buckets.
 *
 * On 2 cores the apiserver bounds total throughput, so what must show the scaling is the cost per
 * replica: about 1/R of the single replica's with server-side filtering; with client-side
 * filtering the events and bytes stay about whole.
 *
 * The replicas are test/e2e/sharding/fixtures/replica.ts, run on this process's Node.
 *
 * Usage: `npx tsx bench/sharding.ts [--n 5000] [--replicas 1,2,4] [--gates on,off]`; writes
 * `bench/results/sharding.json` (git-ignored) and prints a table; `bench/results/sharding.md` keeps
 * the last run that was committed.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ConfigMap, Namespace } from "../src/api/index.ts";
import { Client, loadKubeconfig } from "../src/client/index.ts";
import { type Cluster, startCluster } from "../src/cluster/index.ts";
import { scrapeMetric } from "../src/testing/metrics.ts";
import { OperatorProcess, tsxScript } from "../test/e2e/fixtures/process.ts";
import { installWidgetCrd, Widget, widget } from "../test/e2e/fixtures/widgets.ts";
import { fmt, loadLine, machineLine, table, writeResult } from "./support/report.ts";

const replicaScript = join(import.meta.dirname, "..", "test", "e2e", "sharding", "fixtures", "replica.ts");
const shards = 32;
const leaseDurationMs = 8_000;
const clockTicks = 100;

/** What one replica cost by the time the Widgets converged. */
interface ReplicaCost {
  reconciled: number;
  cpuSeconds: number;
  cpuMsPerObject: number;
  rssMB: number;
  heapMB: number;
  watchEvents: number;
  watchMB: number;
}

/** One run: R replicas on one control plane. */
interface Run {
  gate: "on" | "off";
  replicas: number;
  convergeS: number;
  handoverS?: number;
  perReplica: ReplicaCost[];
}

const { values } = parseArgs({
  options: {
    n: { type: "string", default: "5000" },
    replicas: { type: "string", default: "1,2,4" },
    gates: { type: "string", default: "on,off" },
  },
});
const n = Number(values.n);
const counts = String(values.replicas).split(",").map(Number);
const gates = String(values.gates).split(",") as ("on" | "off")[];

/** CPU seconds a process has used, from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) / clockTicks;
}

/** Resident memory of a process in MB, from /proc. */
function rssMB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+) kB/);
  return Number(line?.[1] ?? 0) / 1024;
}

const now = () => performance.timeOrigin + performance.now();

async function until(
  what: string,
  done: () => boolean | Promise<boolean>,
  timeoutMs = 600_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const reconciled = (replica: OperatorProcess) =>
  new Set(replica.all("reconcile-end").map((e) => e.key as string));

async function metric(replica: OperatorProcess, name: string, labels: Record<string, string> = {}) {
  const port = replica.all("started")[0]?.port;
  return scrapeMetric(`http://127.0.0.1:${port}/metrics`, name, labels);
}

/** Creates the Widgets, 100 at a time. */
async function createWidgets(client: Client, namespace: string): Promise<void> {
  const names = Array.from({ length: n }, (_, i) => `w${i}`);
  for (let i = 0; i < n; i += 100) {
    await Promise.all(
      names.slice(i, i + 100).map((name) => client.create(Widget, widget(namespace, name, name))),
    );
  }
}

/** Converged: every Widget reconciled by someone, every queue empty, and every ConfigMap there. */
async function converged(
  client: Client,
  namespace: string,
  replicas: readonly OperatorProcess[],
): Promise<boolean> {
  const keys = new Set(replicas.flatMap((r) => [...reconciled(r)]));
  if (keys.size < n) return false;
  const depths = await Promise.all(replicas.map((r) => metric(r, "workqueue_depth")));
  if (depths.some((d) => d > 0)) return false;
  const configMaps = await client.list(ConfigMap, { namespace });
  return configMaps.items.filter((cm) => cm.metadata.name?.endsWith("-config")).length >= n;
}

async function cost(replica: OperatorProcess, pid: number, cpuAtStart: number): Promise<ReplicaCost> {
  const count = reconciled(replica).size;
  const cpu = cpuSeconds(pid) - cpuAtStart;
  const events = await metric(replica, "kubeloop_watch_events_total");
  const bytes = await metric(replica, "kubeloop_watch_bytes_total");
  return {
    reconciled: count,
    cpuSeconds: cpu,
    cpuMsPerObject: count ? (cpu * 1000) / count : Number.NaN,
    rssMB: rssMB(pid),
    heapMB: (await metric(replica, "nodejs_heap_size_used_bytes")) / 2 ** 20,
    watchEvents: events,
    watchMB: bytes / 2 ** 20,
  };
}

/** From SIGKILL of the first replica until every Widget it had reconciled was reconciled again. */
async function handover(replicas: readonly OperatorProcess[]): Promise<number> {
  const [victim, ...survivors] = replicas as [OperatorProcess, ...OperatorProcess[]];
  // The victim's Widgets: those it reconciled last (a shard may have moved to another replica before).
  const last = new Map<string, { at: number; replica: OperatorProcess }>();
  for (const replica of replicas) {
    for (const e of replica.all("reconcile-end")) {
      const key = e.key as string;
      if ((last.get(key)?.at ?? 0) < e.at) last.set(key, { at: e.at, replica });
    }
  }
  const keys = new Set([...last].filter(([, l]) => l.replica === victim).map(([key]) => key));
  const killedAt = now();
  victim.kill("SIGKILL");
  await victim.exited;
  const again = () => {
    const seen = new Set(
      survivors.flatMap((s) =>
        s.events.filter((e) => e.event === "reconcile-end" && e.at > killedAt).map((e) => e.key),
      ),
    );
    return [...keys].every((key) => seen.has(key));
  };
  await until("the handover", again, 120_000).catch((err: unknown) => {
    const events = survivors.map(
      (r) => r.events.filter((e) => e.at > killedAt && e.event.startsWith("shard")).length,
    );
    const pending = [...keys].filter(
      (key) => !survivors.some((s) => s.events.some((e) => e.key === key && e.at > killedAt)),
    );
    throw new Error(
      `${String(err)}: shard events after the kill ${events.join(",")}; ${pending.length} of ${keys.size} widgets not reconciled again`,
    );
  });
  return (now() - killedAt) / 1000;
}

async function runOnce(cluster: Cluster, client: Client, gate: "on" | "off", count: number): Promise<Run> {
  const namespace = `bench-${gate}-${count}`;
  await client.create(Namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
  await createWidgets(client, namespace);
  const started = now();
  const replicas = Array.from(
    { length: count },
    (_, i) =>
      new OperatorProcess(
        `r${i}`,
        tsxScript(replicaScript, {
          KUBECONFIG: cluster.kubeconfigPath,
          OPERATOR_NAMESPACE: namespace,
          OPERATOR_IDENTITY: `r${i}`,
          OPERATOR_SHARDS: String(shards),
          OPERATOR_LEASE_MS: String(leaseDurationMs),
          LOG_LEVEL: "warn",
        }),
      ),
  );
  try {
    // CPU from the manager's start on: loading the TypeScript sources (tsx) is no operator's cost.
    await until("the replicas to start", () => replicas.every((r) => r.all("started").length > 0), 60_000);
    const atStart = replicas.map((r) => cpuSeconds(r.pid));
    await until(`${count} replicas to converge ${n} Widgets`, () => converged(client, namespace, replicas));
    const convergeS = (now() - started) / 1000;
    const perReplica = await Promise.all(replicas.map((r, i) => cost(r, r.pid, atStart[i] ?? 0)));
    const handoverS = count > 1 ? await handover(replicas) : undefined;
    return { gate, replicas: count, convergeS, handoverS, perReplica };
  } finally {
    for (const replica of replicas) if (replica.running) replica.kill("SIGKILL");
    await Promise.all(replicas.map((r) => r.exited));
    await client.delete(Namespace, namespace).catch(() => {});
  }
}

function report(runs: readonly Run[]): string {
  const rows = runs.flatMap((run) =>
    run.perReplica.map((c, i) => [
      run.gate,
      String(run.replicas),
      i === 0 ? fmt(run.convergeS, 1) : "",
      i === 0 && run.handoverS !== undefined ? fmt(run.handoverS, 1) : "",
      `r${i}`,
      fmt(c.reconciled),
      fmt(c.cpuSeconds, 1),
      fmt(c.cpuMsPerObject, 2),
      fmt(c.rssMB),
      fmt(c.heapMB),
      fmt(c.watchEvents),
      fmt(c.watchMB, 1),
    ]),
  );
  const header = [
    "gate",
    "replicas",
    "converge s",
    "handover s",
    "replica",
    "reconciled",
    "CPU s",
    "CPU ms/object",
    "RSS MB",
    "heap MB",
    "watch events",
    "watch MB",
  ];
  return table(header, rows);
}

async function main(): Promise<void> {
  const runs: Run[] = [];
  for (const gate of gates) {
    const cluster = await startCluster({
      apiserverArgs: [`--feature-gates=ShardedListAndWatch=${gate === "on"}`],
      components: { controllerManager: false, scheduler: false, kwok: false },
      report: () => {},
    });
    const client = new Client(await loadKubeconfig({ kubeconfig: cluster.kubeconfigPath }), {
      qps: Number.POSITIVE_INFINITY,
    });
    // The Widget fixtures install their CRD with the run's kubectl, as the end-to-end tests do.
    process.env.KUBELOOP_E2E_BIN = join(cluster.assets.kubectl, "..");
    process.env.KUBECONFIG = cluster.kubeconfigPath;
    try {
      await installWidgetCrd(cluster.kubeconfigPath);
      for (const count of counts) {
        const run = await runOnce(cluster, client, gate, count);
        runs.push(run);
        console.log(report([run]));
      }
    } finally {
      await client.close();
      await cluster.stop();
    }
  }
  const text = [
    machineLine(),
    loadLine(),
    `N = ${n} Widgets, ${shards} virtual shards by uid, Lease ${leaseDurationMs / 1000} s`,
    "",
    report(runs),
  ].join("\n");
  console.log(`\n${text}`);
  writeResult("sharding", { n, shards, leaseDurationMs, runs });
}

await main();
