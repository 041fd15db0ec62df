/**
 * Does a member cluster whose apiserver goes away slow the others down (issue 36)? One `Fleet` in
 * this process, at its defaults (probe every 5 s, disengaged after 3 failures), on three member
 * clusters (`startMemberClusters`, through `staticProvider`), reconciling labelled ConfigMaps. A
 * writer changes ConfigMaps of member-0 and member-1 steadily (`RATE` changes a second each, over
 * 10 ConfigMaps per member), and the reconciler records each change's latency: from just before
 * its write was sent to the first reconcile that saw it (or a later change of the same object).
 * Windows of `WINDOW_S` seconds alternate, `rounds` times: a baseline with the three members up,
 * then an outage, member-2's apiserver killed (SIGKILL) at the window's start and started again
 * after it, once the fleet disengaged it (the next baseline waits until it is engaged again). It
 * reports each window's p50 and p99 of member-0's and member-1's changes (an outage's also over
 * the changes sent while member-2 was down but not yet disengaged, and when it was disengaged),
 * the ratio p99(outage) / p99(baseline) per round and pooled, and the spread of the baselines'
 * p99s as the noise to judge that ratio by.
 *
 * Usage: `npx tsx --conditions=kubeloop-source bench/fleet-outage.ts [rounds]` (default 3; env
 * `WINDOW_S`, default 30, and `RATE`, default 20); writes `bench/results/fleet-outage.json`
 * (git-ignored); `bench/results/fleet-outage.md` keeps the last run that was committed. The
 * fleet's log goes to a file in the temporary directory (its path is printed).
 */
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { ConfigMap } from "../src/api/index.ts";
import { Client, loadKubeconfig } from "../src/client/index.ts";
import { systemClock } from "../src/clock/index.ts";
import { type MemberCluster, startMemberClusters } from "../src/cluster/index.ts";
import { controller } from "../src/controller/index.ts";
import { Fleet, inCluster, staticProvider } from "../src/multicluster/index.ts";
import { eventually } from "../src/testing/index.ts";
import { fmt, loadLine, machineLine, median, table, writeResult } from "./support/report.ts";

const rounds = Number(process.argv[2] ?? 3);
const windowMs = Number(process.env.WINDOW_S ?? 30) * 1000;
const rate = Number(process.env.RATE ?? 20);
const OBJECTS = 10;
const LABEL = "bench.kubeloop.dev/outage";
const NAMESPACE = "default";

/** The change latencies of the streamed members, and the changes not reconciled yet. */
class Latencies {
  /** Per object (`<cluster>/<name>`), its changes not yet reconciled, oldest first. */
  readonly #pending = new Map<string, { gen: number; at: number }[]>();
  /** Reconciled changes: when each was sent and how long until it was reconciled (ms). */
  readonly samples: { at: number; ms: number }[] = [];

  /** Change `gen` of `key` is about to be sent. */
  sent(key: string, gen: number): void {
    const list = this.#pending.get(key) ?? [];
    list.push({ gen, at: performance.now() });
    this.#pending.set(key, list);
  }

  /** A reconcile of `key` saw change `gen`: it and every earlier change of `key` are reconciled. */
  reconciled(key: string, gen: number): void {
    const list = this.#pending.get(key) ?? [];
    const now = performance.now();
    while (list[0] && list[0].gen <= gen) {
      const change = list.shift() as { at: number };
      this.samples.push({ at: change.at, ms: now - change.at });
    }
  }

  /** Whether every change sent before `time` was reconciled. */
  settledBefore(time: number): boolean {
    return [...this.#pending.values()].every((list) => (list[0]?.at ?? time) >= time);
  }

  /** Latencies of the changes sent in [start, end), sorted. */
  between(start: number, end: number): number[] {
    return this.samples
      .filter((s) => s.at >= start && s.at < end)
      .map((s) => s.ms)
      .sort((a, b) => a - b);
  }
}

/** What one window measured. */
interface Window {
  kind: "baseline" | "outage";
  /** Its bounds, on `performance.now()`. */
  start: number;
  end: number;
  changes: number;
  p50: number;
  p99: number;
  /** Outage only: when member-2 was disengaged, from the window's start (ms). */
  disengagedMs?: number;
  /** Outage only: the p99 of the changes sent while member-2 was down but still engaged. */
  p99Engaged?: number;
}

/** The `q` quantile of sorted `xs` (nearest rank). */
function quantile(xs: readonly number[], q: number): number {
  return xs[Math.max(0, Math.ceil(q * xs.length) - 1)] ?? Number.NaN;
}

/** Changes ConfigMaps `cm-<i>` of `cluster` one after another, `rate` a second, until `signal` aborts. */
async function stream(
  client: Client,
  cluster: string,
  latencies: Latencies,
  signal: AbortSignal,
): Promise<void> {
  let next = performance.now();
  for (let gen = 1; !signal.aborted; gen++) {
    const name = `cm-${gen % OBJECTS}`;
    latencies.sent(`${cluster}/${name}`, gen);
    await client.patch(
      ConfigMap,
      name,
      { data: { gen: String(gen) } },
      { type: "merge", namespace: NAMESPACE },
    );
    next += 1000 / rate;
    await systemClock.sleep(Math.max(0, next - performance.now()), signal).catch(() => {});
  }
}

/** A client of `member` with the labelled ConfigMaps created. */
async function prepared(member: MemberCluster): Promise<Client> {
  const client = new Client(await loadKubeconfig({ kubeconfig: member.kubeconfigPath }));
  for (let i = 0; i < OBJECTS; i++) {
    const metadata = { name: `cm-${i}`, namespace: NAMESPACE, labels: { [LABEL]: "true" } };
    await client.create(ConfigMap, { apiVersion: "v1", kind: "ConfigMap", metadata, data: { gen: "0" } });
  }
  return client;
}

/** A fleet on the kubeconfigs of `members` (clusters named after them) that feeds `latencies`. */
function fleetOn(members: readonly MemberCluster[], latencies: Latencies, logFile: string): Fleet {
  const directory = mkdtempSync(join(tmpdir(), "fleet-outage-"));
  for (const m of members) copyFileSync(m.kubeconfigPath, join(directory, `${m.name}.yaml`));
  return new Fleet({
    name: "fleet-outage",
    providers: [staticProvider({ directory })],
    logger: pino({ level: "info" }, pino.destination({ dest: logFile, sync: false })),
    setup: (manager, cluster) =>
      controller(manager)
        .for(ConfigMap)
        .reconcile(
          inCluster(cluster, async (ctx) => {
            const meta = ctx.object?.metadata;
            if (!meta?.labels?.[LABEL]) return;
            latencies.reconciled(`${cluster.name}/${meta.name}`, Number(ctx.object?.data?.gen));
          }),
        ),
  });
}

const logFile = join(mkdtempSync(join(tmpdir(), "fleet-outage-log-")), "fleet.log");
await using members = await startMemberClusters({ count: 3 });
const [m0, m1, down] = members.members as [MemberCluster, MemberCluster, MemberCluster];
const clients = await Promise.all(members.members.map(prepared));
const latencies = new Latencies();
const fleet = fleetOn(members.members, latencies, logFile);
const stop = new AbortController();
const running = fleet.start(stop.signal);
const engaged = (name: string) => fleet.clusters().some((c) => c.name === name && c.engaged && c.synced);
const allEngaged = () => members.members.every((m) => engaged(m.name));
await eventually(allEngaged, { what: "the three members engaged", timeoutMs: 120_000 });
const writers = [m0, m1].map((m, i) => stream(clients[i] as Client, m.name, latencies, stop.signal));
// Warm up (JIT, connection pools) before the first window.
await systemClock.sleep(Math.min(windowMs, 10_000));

/**
 * One window of `kind`. An outage's kills member-2 at its start and, once the window is over and
 * the fleet disengaged it, starts it again and waits until it is engaged: the next window has
 * three members again.
 */
async function measure(kind: Window["kind"]): Promise<Window> {
  const start = performance.now();
  const disengaged = kind === "outage" ? stopDown() : Promise.resolve(start);
  await systemClock.sleep(windowMs);
  const end = performance.now();
  const disengagedMs = kind === "outage" ? (await disengaged) - start : undefined;
  if (kind === "outage") await startDown();
  await eventually(() => latencies.settledBefore(end), { what: "the window's changes reconciled" });
  const ms = latencies.between(start, end);
  const result = {
    kind,
    start,
    end,
    changes: ms.length,
    p50: quantile(ms, 0.5),
    p99: quantile(ms, 0.99),
    disengagedMs,
    p99Engaged: disengagedMs && quantile(latencies.between(start, start + disengagedMs), 0.99),
  };
  console.error(`${kind}: ${JSON.stringify(result, (_, v) => (typeof v === "number" ? Math.round(v) : v))}`);
  return result;
}

/** Kills member-2's apiserver; resolves when the fleet disengaged it (on `performance.now()`). */
async function stopDown(): Promise<number> {
  await down.stop();
  return eventually(() => !engaged(down.name) && performance.now(), {
    what: `${down.name} disengaged`,
    timeoutMs: 120_000,
    intervalMs: 50,
  });
}

/** Starts member-2's apiserver again and waits until the fleet engaged it. */
async function startDown(): Promise<void> {
  await down.start();
  await eventually(() => engaged(down.name), { what: `${down.name} engaged again`, timeoutMs: 120_000 });
}

const windows: Window[] = [];
for (let round = 0; round < rounds; round++) windows.push(await measure("baseline"), await measure("outage"));
stop.abort();
await Promise.all([...writers, running]);
await Promise.all(clients.map((c) => c.close()));

const ms = (x: number) => `${fmt(x, 1)} ms`;
const of = (kind: Window["kind"]) => windows.filter((w) => w.kind === kind);
/** The p99 of every change of the windows of `kind` together. */
const pooledP99 = (kind: Window["kind"]) =>
  quantile(
    of(kind)
      .flatMap((w) => latencies.between(w.start, w.end))
      .sort((a, b) => a - b),
    0.99,
  );
const baseP99 = of("baseline").map((w) => w.p99);
const outP99 = of("outage").map((w) => w.p99);
const ratios = outP99.map((o, i) => o / (baseP99[i] ?? Number.NaN));
const rows = of("baseline").map((b, i) => {
  const o = of("outage")[i] as Window;
  return [
    `${i + 1}`,
    `${ms(b.p50)} / ${ms(b.p99)} (${b.changes})`,
    `${ms(o.p50)} / ${ms(o.p99)} (${o.changes})`,
    ms(o.p99Engaged ?? Number.NaN),
    fmt(ratios[i] ?? Number.NaN, 2),
    `${fmt((o.disengagedMs ?? Number.NaN) / 1000, 1)} s`,
  ];
});
console.log(machineLine());
console.log(loadLine());
console.log(`fleet log: ${logFile}`);
console.log(
  `\n${rounds} rounds of ${windowMs / 1000} s windows, ${rate} changes/s on each of member-0 and member-1; outage: member-2's apiserver killed\n`,
);
console.log(
  table(
    [
      "round",
      "baseline p50 / p99 (changes)",
      "outage p50 / p99 (changes)",
      "outage p99 while still engaged",
      "p99 ratio",
      "member-2 disengaged after",
    ],
    rows,
  ),
);
console.log(
  `\np99 ratio outage / baseline: median of the rounds ${fmt(median(ratios), 2)} ` +
    `(${fmt(Math.min(...ratios), 2)} to ${fmt(Math.max(...ratios), 2)}), ` +
    `${fmt(pooledP99("outage") / pooledP99("baseline"), 2)} (pooled: ${ms(pooledP99("outage"))} / ${ms(pooledP99("baseline"))}); ` +
    `baseline p99s (noise): ${ms(Math.min(...baseP99))} to ${ms(Math.max(...baseP99))}`,
);
writeResult("fleet-outage", { rounds, windowMs, rate, windows });
process.exit(0);
