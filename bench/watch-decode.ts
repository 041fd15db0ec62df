/**
 * Watch decode throughput, end to end, for Pod-like objects of about 4.7 KB:
 *
 * - anchor: `JSON.parse` of the same lines, one by one, already split (what the hot path cannot beat);
 * - (a) `decodeLines` alone over a pre-built buffer of N newline-delimited watch events, fed in
 *   16 KB chunks as a socket delivers them;
 * - (b) decode, then the watcher's event translation, then the real `reflect` into a real
 *   `createStore` with the informer's default transform (`managedFields` stripped, repeated strings
 *   shared), consuming every change as
 *   the informer does; once as a running watch (`apply` events) and once as an initial sync
 *   (`init`, `initApply` × N, `initDone`, which buffers and swaps in);
 * - (c) against a real kube-apiserver: an `Informer` of ConfigMaps (about 4 KB each) from start
 *   until synced, with the default streaming initial state (`sendInitialEvents`) and with a
 *   paged list. The apiserver shares the machine's cores with this process.
 *
 * Besides wall-clock events/s, the table gives events per CPU-second of this process (all its
 * threads, so GC helper threads count): on a shared machine it is the steadier per-core figure.
 * For (c) it counts the client side only. Run under `node --expose-gc --import tsx` to collect
 * garbage between runs; `npx tsx` works too.
 *
 * Usage: `npx tsx bench/watch-decode.ts [N=20000] [repetitions=7] [--no-cluster]`.
 */
import { ConfigMap, type ConfigMapObject, type KubeObject, Namespace } from "../src/api/index.ts";
import { createStore, Informer, internStrings, reflect, stripManagedFields } from "../src/cache/index.ts";
import { Client, loadKubeconfig } from "../src/client/index.ts";
import { startCluster } from "../src/cluster/index.ts";
import { decodeLines, type RawWatchEvent, type WatchEvent } from "../src/watch/index.ts";
import { podJson } from "./support/pods.ts";
import { fmt, loadLine, machineLine, median, table, timed, writeResult } from "./support/report.ts";

const args = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const withCluster = !process.argv.includes("--no-cluster");
const n = Number(args[0] ?? 20_000);
const repetitions = Number(args[1] ?? 7);
const chunkSize = 16 * 1024;
const clusterObjects = 2000;

interface Result {
  name: string;
  events: number;
  bytes: number;
  /** Wall-clock milliseconds per run. */
  ms: number[];
  /** CPU milliseconds of this process per run (user + system, all threads, GC helpers included). */
  cpuMs: number[];
}

const results: Result[] = [];
const collectGarbage = () => (globalThis as { gc?: () => void }).gc?.();

/** Runs `fn` once to warm up, then `repetitions` times, recording wall and CPU milliseconds. */
async function bench(name: string, events: number, bytes: number, fn: () => Promise<void>): Promise<void> {
  collectGarbage();
  await fn();
  const ms: number[] = [];
  const cpuMs: number[] = [];
  for (let rep = 0; rep < repetitions; rep++) {
    collectGarbage();
    const cpu0 = process.cpuUsage();
    ms.push(await timed(fn));
    const cpu = process.cpuUsage(cpu0);
    cpuMs.push((cpu.user + cpu.system) / 1000);
  }
  results.push({ name, events, bytes, ms, cpuMs });
  process.stderr.write(`${name}: done\n`);
}

// ---- the input: N watch lines, as one buffer -------------------------------------------------

const lines = Array.from({ length: n }, (_, i) => `{"type":"ADDED","object":${podJson(i)}}`);
const buffer = Buffer.from(`${lines.join("\n")}\n`);
const objectBytes = buffer.length / n;

async function* chunks(): AsyncGenerator<Buffer> {
  for (let offset = 0; offset < buffer.length; offset += chunkSize)
    yield buffer.subarray(offset, offset + chunkSize);
}

/** The watcher's translation of raw events (`#translate`), for a running watch or an initial sync. */
async function* watchEvents(initial: boolean): AsyncGenerator<WatchEvent> {
  if (initial) yield { type: "init" };
  for await (const raw of decodeLines(chunks())) yield translate(raw, initial);
  if (initial) yield { type: "initDone" };
}

function translate(raw: RawWatchEvent, initial: boolean): WatchEvent {
  const object = raw.object as unknown as KubeObject;
  if (raw.type === "DELETED") return { type: "delete", object };
  return { type: initial ? "initApply" : "apply", object };
}

async function reflectAll(initial: boolean): Promise<void> {
  const store = createStore<KubeObject>();
  const intern = internStrings<KubeObject>();
  let changes = 0;
  for await (const change of reflect(store, watchEvents(initial), (o) => intern(stripManagedFields(o)))) {
    if (change.type !== "synced") changes++;
  }
  if (changes !== n || store.reader.size !== n) throw new Error(`stored ${store.reader.size} of ${n}`);
}

await bench("anchor: JSON.parse of pre-split lines", n, buffer.length, async () => {
  let count = 0;
  for (const line of lines) if (JSON.parse(line)) count++;
  if (count !== n) throw new Error("lost lines");
});
await bench("(a) decodeLines, 16 KB chunks", n, buffer.length, async () => {
  let count = 0;
  for await (const _ of decodeLines(chunks())) count++;
  if (count !== n) throw new Error(`decoded ${count} of ${n}`);
});
await bench("(b) decode + reflect, strip managedFields: watch (apply)", n, buffer.length, () =>
  reflectAll(false),
);
await bench("(b) decode + reflect, strip managedFields: initial sync", n, buffer.length, () =>
  reflectAll(true),
);

// ---- (c) a real apiserver: informer initial sync -------------------------------------------

function bigConfigMap(i: number, namespace: string): ConfigMapObject {
  const text = (k: number) =>
    Array.from({ length: 16 }, (_, l) => `line ${l} of ${k} in ${i}: ${(i * 7919 + l * 31 + k).toString(36)}`)
      .join("\n")
      .padEnd(950, ".");
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: `cm-${i}`, namespace, labels: { app: "bench", shard: String(i % 8) } },
    data: { a: text(0), b: text(1), c: text(2), d: text(3) },
  };
}

async function informerSync(): Promise<void> {
  const cluster = await startCluster({
    components: { controllerManager: false, scheduler: false, kwok: false },
    report: () => {},
  });
  try {
    const client = new Client(await loadKubeconfig({ kubeconfig: cluster.kubeconfigPath }), {
      qps: Infinity,
    });
    try {
      const namespace = "bench";
      await client.create(Namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
      for (let i = 0; i < clusterObjects; i += 16) {
        const batch = Array.from({ length: Math.min(16, clusterObjects - i) }, (_, k) => i + k);
        await Promise.all(batch.map((k) => client.create(ConfigMap, bigConfigMap(k, namespace))));
      }
      const { items } = await client.list(ConfigMap, { namespace });
      const bytes = items.reduce((sum, o) => sum + JSON.stringify(o).length, 0);
      for (const initialState of ["streaming", "list"] as const) {
        const sync = async () => {
          const controller = new AbortController();
          const informer = new Informer(client, ConfigMap, { namespace, watch: { initialState } });
          const running = informer.start(controller.signal);
          await informer.waitForSync(controller.signal);
          if (informer.store.size !== clusterObjects) throw new Error(`synced ${informer.store.size}`);
          controller.abort();
          await running;
        };
        await bench(
          `(c) Informer sync from kube-apiserver, ${initialState === "streaming" ? "streaming (sendInitialEvents)" : "paged list"}`,
          clusterObjects,
          bytes,
          sync,
        );
      }
    } finally {
      await client.close();
    }
  } finally {
    await cluster.stop();
  }
}

if (withCluster) await informerSync();

// ---- report ---------------------------------------------------------------------------------

console.log(machineLine());
console.log(loadLine());
console.log(
  `N = ${fmt(n)} Pod-like watch events of ${fmt(objectBytes)} B each (${fmt(buffer.length / 2 ** 20, 1)} MiB); ` +
    `(c): ${fmt(clusterObjects)} ConfigMaps. Median of ${repetitions} repetitions after a warm-up run.\n`,
);
console.log(
  table(
    ["stage", "events/s (wall)", "events per CPU-second", "MB/s (wall)", "ms per run"],
    results.map((r) => {
      const ms = median(r.ms);
      return [
        r.name,
        fmt(r.events / (ms / 1000)),
        fmt(r.events / (median(r.cpuMs) / 1000)),
        fmt(r.bytes / 1e6 / (ms / 1000), 1),
        fmt(ms, 1),
      ];
    }),
  ),
);
console.log("\ngoal for (b): ≥ 15,000 events/s per core; anchor: raw JSON.parse 19–30k/s on one core");
const path = writeResult("watch-decode", {
  n,
  repetitions,
  chunkSize,
  objectBytes,
  goal: { eventsPerSecond: 15_000 },
  stages: results.map((r) => ({
    ...r,
    medianMs: median(r.ms),
    medianCpuMs: median(r.cpuMs),
    eventsPerSecond: r.events / (median(r.ms) / 1000),
    eventsPerCpuSecond: r.events / (median(r.cpuMs) / 1000),
  })),
});
console.log(`\nwrote ${path}`);
