/**
 * What the live page costs a reconcile: every reconcile is recorded into its controller's ring of
 * the last 50 (one small object holding a reference to the queue item, and an array store).
 *
 * - (a) the recording alone: pushes of such records into a `Ring` of 50, ns per record;
 * - (b) a whole reconcile as the controller runs it (queue add and get, worker, context, outcome,
 *   recording included) with a reconciler that does nothing, µs per reconcile;
 *
 * and (a) as a share of (b): the upper bound of what recording adds to the cheapest reconcile
 * there is (a real one reads the cache and talks to the apiserver, and costs far more).
 *
 * Usage: `npx tsx bench/live-recording.ts [N=200000] [repetitions=7]`.
 */
import { pino } from "pino";
import { ConfigMap, type ConfigMapObject } from "../src/api/index.ts";
import { createStore, type Informer, type InformerCache } from "../src/cache/index.ts";
import type { Client } from "../src/client/index.ts";
import { Controller, type ReconcileRecord } from "../src/controller/index.ts";
import { Ring } from "../src/controller/recent.ts";
import type { EventRecorder } from "../src/events/index.ts";
import type { QueueItem } from "../src/queue/index.ts";
import { fmt, machineLine, median, table } from "./support/report.ts";

const [n = 200_000, repetitions = 7] = process.argv.slice(2).map(Number);

/** Nanoseconds per record pushed into a ring of 50. */
function recording(): number {
  const ring = new Ring<ReconcileRecord>(50);
  const items: QueueItem[] = Array.from({ length: 1024 }, (_, i) => ({
    key: `ns/k${i}`,
    reasons: [{ reason: "owned:ConfigMap:update", count: 1 }],
    queuedAt: i,
    startedAt: i,
    priority: 0,
  }));
  const count = n * 25;
  const start = process.hrtime.bigint();
  for (let i = 0; i < count; i++) {
    ring.push({ item: items[i & 1023] as QueueItem, seconds: i * 1e-6, result: "success" });
  }
  return Number(process.hrtime.bigint() - start) / count;
}

/** Microseconds per reconcile of a controller whose reconciler does nothing. */
async function reconciles(): Promise<number> {
  const informer = { type: ConfigMap, store: createStore<ConfigMapObject>().reader };
  let done = 0;
  let finished: () => void = () => {};
  const all = new Promise<void>((resolve) => {
    finished = resolve;
  });
  const controller = new Controller<ConfigMapObject>(
    "bench",
    informer as unknown as Informer<ConfigMapObject>,
    [],
    async () => {
      if (++done === n) finished();
    },
    {
      client: {} as Client,
      cache: {} as InformerCache,
      logger: pino({ level: "silent" }),
      recorder: {} as EventRecorder,
    },
    { resyncPeriodMs: 0 },
  );
  const stop = new AbortController();
  const start = process.hrtime.bigint();
  const running = controller.run(stop.signal);
  for (let i = 0; i < n; i++) controller.enqueue(`ns/k${i}`, "owned:ConfigMap:update");
  await all;
  const micros = Number(process.hrtime.bigint() - start) / 1000 / n;
  stop.abort();
  await running;
  return micros;
}

const ns: number[] = [];
const us: number[] = [];
for (let r = 0; r < repetitions; r++) {
  ns.push(recording());
  us.push(await reconciles());
}
const [record, reconcile] = [median(ns), median(us)];
console.log(machineLine());
console.log(
  table(
    ["recording (ns/reconcile)", "no-op reconcile (µs)", "recording's share"],
    [[fmt(record, 1), fmt(reconcile, 2), `${fmt((record / (reconcile * 1000)) * 100, 2)} %`]],
  ),
);
