/** Drives a {@link Controller} on a FakeClock with a scripted source, a real store and a recording reconciler. */
import type { TestContext } from "node:test";
import { pino } from "pino";
import { ConfigMap, type ConfigMapObject, type ResourceType } from "../../../src/api/index.ts";
import { createStore, type Informer, type InformerCache } from "../../../src/cache/index.ts";
import type { Client } from "../../../src/client/index.ts";
import { FakeClock } from "../../../src/clock/index.ts";
import {
  type Action,
  Controller,
  type ControllerDeps,
  type ControllerMetrics,
  type ControllerOptions,
  type Enqueue,
  type ReconcileContext,
  type Source,
} from "../../../src/controller/index.ts";
import { EventRecorder } from "../../../src/events/index.ts";
import { noopQueueMetrics } from "../../../src/queue/index.ts";
import { FakeEventClient } from "../events/support.ts";

/** Lets every pending promise callback run (one macrotask turn; no time passes on any clock). */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Lets the workers run until `done` holds (or 200 event-loop turns passed): on a loaded machine
 * a worker yields its turn (after 10 ms of work) before a single {@link flush} sees it finish.
 */
export async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await flush();
}

/** A promise with its resolvers, for reconciles the test finishes by hand. */
export function deferred<T = void>(): {
  promise: Promise<T>;
  resolve: (v: T) => void;
  reject: (e: unknown) => void;
} {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A source the test pushes keys through, recording whether it was stopped. */
export class FakeSource implements Source {
  enqueue: Enqueue = () => {
    throw new Error("the source has not been started");
  };
  started = 0;
  stopped = 0;

  start(enqueue: Enqueue): () => void {
    this.started++;
    this.enqueue = enqueue;
    return () => {
      this.stopped++;
    };
  }
}

/** Controller metrics that record every call as a string. */
export function recordingControllerMetrics(): { metrics: ControllerMetrics; calls: string[] } {
  const calls: string[] = [];
  const metrics: ControllerMetrics = {
    reconciled: (result, seconds) => calls.push(`reconciled ${result} ${seconds}`),
    failed: (terminal) => calls.push(`failed ${terminal ? "terminal" : "retriable"}`),
    timedOut: () => calls.push("timed out"),
    ownWritesWaited: (outcome) => calls.push(`own writes ${outcome}`),
    handlingFailed: (source) => calls.push(`handling ${source}`),
    activeWorkers: (count) => calls.push(`active ${count}`),
    maxConcurrent: (count) => calls.push(`max ${count}`),
    triggered: (reason) => calls.push(`triggered ${reason}`),
    driftRepaired: (kind, manager) => calls.push(`drift ${kind} ${manager}`),
    conditionTransitioned: (kind, condition, status) =>
      calls.push(`transition ${kind} ${condition} ${status}`),
    queue: noopQueueMetrics,
  };
  return { metrics, calls };
}

/**
 * `fake` as the controller's client, for tests that do not look at fences: its `fenced` views are
 * `fake` itself (the controller fences each reconcile's client by its signal).
 */
export function unfenced(fake: object): Client {
  return Object.assign(fake, { fenced: () => fake, written: () => fake }) as unknown as Client;
}

/** One call of the reconciler, as it saw it. */
export interface Reconcile {
  ctx: ReconcileContext<ConfigMapObject>;
  at: number;
}

/** What the reconciler does on a call: return an Action, throw, or wait. */
export type Behaviour = (call: Reconcile, index: number) => Promise<Action | undefined> | Action | undefined;

/** What {@link harness} may replace: the controller's deps, and its primary kind (ConfigMap). */
export type HarnessDeps = Partial<Pick<ControllerDeps, "logger" | "metrics" | "recorder" | "client">> & {
  primary?: ResourceType<ConfigMapObject>;
};

/**
 * A controller of ConfigMaps named `widgets`, not yet running; `deps` replaces its logger, metrics,
 * recorder (default: a real one on the FakeClock, writing to `events`), client or primary kind.
 */
export function harness(
  t: TestContext,
  behaviour: Behaviour = () => undefined,
  options: ControllerOptions = {},
  deps: HarnessDeps = {},
) {
  const clock = new FakeClock(10_000);
  const store = createStore<ConfigMapObject>();
  const { primary = ConfigMap, ...replaced } = deps;
  const informer = { type: primary, store: store.reader } as unknown as Informer<ConfigMapObject>;
  const events = new FakeEventClient();
  const recorder = new EventRecorder(events, { reportingController: "widgets", clock });
  const source = new FakeSource();
  const { metrics, calls } = recordingControllerMetrics();
  const reconciles: Reconcile[] = [];
  const controller = new Controller<ConfigMapObject>(
    "widgets",
    informer,
    [source],
    async (ctx) => {
      const call = { ctx, at: clock.now() };
      reconciles.push(call);
      return behaviour(call, reconciles.length - 1);
    },
    {
      client: unfenced({}),
      cache: {} as InformerCache,
      logger: pino({ level: "silent" }),
      recorder,
      metrics,
      clock,
      ...replaced,
    },
    { resyncPeriodMs: 0, ...options },
  );
  const stop = new AbortController();
  t.after(() => stop.abort());
  /** Starts the controller; resolves when it has stopped. */
  const run = () => controller.run(stop.signal);
  /** The keys reconciled so far, in order. */
  const keys = () => reconciles.map((r) => r.ctx.request.key);
  /** Advances the clock by `ms` and lets the controller react. */
  const advance = async (ms: number) => {
    clock.advance(ms);
    await flush();
    await flush();
  };
  return { clock, store, source, calls, reconciles, controller, stop, run, keys, advance, events };
}

/** A ConfigMap in namespace `ns`. */
export function cm(name: string, resourceVersion = "1"): ConfigMapObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "ns", resourceVersion } };
}
