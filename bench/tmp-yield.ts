import { pino } from "pino";
import { ConfigMap, type ConfigMapObject } from "../src/api/index.ts";
import { createStore, type Informer, type InformerCache } from "../src/cache/index.ts";
import type { Client } from "../src/client/index.ts";
import { FakeClock } from "../src/clock/index.ts";
import { Action, Controller } from "../src/controller/index.ts";
import type { EventRecorder } from "../src/events/index.ts";

const store = createStore<ConfigMapObject>();
const informer = { type: ConfigMap, store: store.reader } as unknown as Informer<ConfigMapObject>;
let count = 0;
const N = 1_000_000;
let t0 = 0;
let enqueue: (k: string, r: string) => void = () => {};
const controller = new Controller<ConfigMapObject>("bench", informer, [{ start: (e) => { enqueue = e; return () => {}; } }],
  async () => {
    count++;
    if (count === N) {
      const ms = performance.now() - t0;
      console.log(`${process.env.LABEL}: ${Math.round((N / ms) * 1000)} reconciles/s`);
      setImmediate(() => process.exit(0));
    }
    return count < N ? Action.requeueAfter(0) : undefined;
  },
  { client: {} as Client, cache: {} as InformerCache, logger: pino({ level: "silent" }), recorder: {} as EventRecorder, clock: new FakeClock() },
  { resyncPeriodMs: 0, concurrency: Number(process.env.C ?? 1) });
const stop = new AbortController();
const running = controller.run(stop.signal);
for (let i = 0; i < 10; i++) enqueue(`ns/k${i}`, "x");
t0 = performance.now();
void running;
void stop;
