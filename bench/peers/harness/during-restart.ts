/**
 * Work that arrives while a restarted operator walks through every object it already has: the
 * scenarios a priority queue exists for. Both start from every Widget present and converged, stop
 * the operator and start it again.
 *
 * - change during restart: `changeCount` new Widgets are created 0.5 s after the process starts;
 *   each is timed from its create to the runner seeing it converged (p50, p99, max).
 * - starvation: the runner changes the specs of the first `STREAM_KEYS` Widgets at a steady rate,
 *   above what the operator and apiserver of this machine serve, from 1 s before the restart until
 *   every unchanged Widget has been reconciled once (at most `STARVATION_CAP_MS`) and for at least
 *   `CHANGED_WINDOW_MS`: normal-priority work that never runs out. Reported is when the last
 *   unchanged Widget was reconciled — the last low-priority one, the contender's `BENCH
 *   unchanged-reconciled`; the changed ones are timed by their latency below — or ∞ when that did
 *   not happen within the cap; the
 *   latency of the changes made in the first `CHANGED_WINDOW_MS` after the process start, each from
 *   its PATCH to the runner seeing its Widget converged with that message or a later one (p50,
 *   p99: what the priorities protect, in the same window for every contender); and the stream's
 *   achieved rate.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { ContenderProcess } from "./contenders.ts";
import { type Kube, widgetName } from "./kube.ts";
import { percentile, Stopwatches } from "./stopwatches.ts";
import type { Tracker } from "./tracker.ts";

/** What the restart scenarios need from the sequence. */
export interface RestartContext {
  kube: Kube;
  tracker: Tracker;
  /** Waits until the running operator has sent nothing for 2 s. */
  quiesce(): Promise<void>;
  /** Stops the running operator and starts it again, expecting `expect` Widgets reconciled. */
  restart(expect: number): Promise<ContenderProcess>;
  timeoutMs: number;
  log(line: string): void;
}

export interface ChangeDuringRestart {
  changes: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** From process start until every Widget, old and new, was reconciled once. */
  allReconciledSeconds: number;
}

export interface Starvation {
  /** Spec changes the runner made, from 1 s before the restart until every Widget was reconciled. */
  changes: number;
  /** Their rate, per second, as achieved (the target is `rate`). */
  changesPerSecond: number;
  /** From process start until every Widget present at the start and not changed by the stream was reconciled once. */
  lastLowPrioritySeconds: number;
  /** Latency of the changes made in the window, PATCH to converged (∞ p99 when over 1 % never converged). */
  changedP50Ms: number;
  changedP99Ms: number;
}

/** Delay from the process start to the first change, as the scenario is defined. */
const CHANGE_AFTER_MS = 500;

/**
 * Widgets the starvation stream changes, round robin (the first ones by name); the others are only
 * in the initial list. Contenders get it as `BENCH_STREAMED`, to tell when the others were reconciled.
 */
export const STREAM_KEYS = 100;

/** How long the starvation stream runs at most, after the restart. */
const STARVATION_CAP_MS = 60_000;

/** The changes whose latency is reported: those made this long from the process start. */
const CHANGED_WINDOW_MS = 10_000;

/** Waits until `ms` after the process started. */
const untilAfterStart = (proc: ContenderProcess, ms: number) =>
  sleep(Math.max(0, proc.startedAt + ms - performance.now()));

/** Restarts the operator and creates `changeCount` Widgets 0.5 s after its process started. */
export async function changeDuringRestart(
  ctx: RestartContext,
  changeCount: number,
): Promise<ChangeDuringRestart> {
  const { kube, tracker } = ctx;
  const present = await settled(ctx);
  const watches = new Stopwatches(changeCount);
  tracker.onWidgetConverged = watches.stop;
  const proc = await ctx.restart(present + changeCount);
  await untilAfterStart(proc, CHANGE_AFTER_MS);
  await kube.each(changeCount, changeCount, (k) => {
    const name = widgetName(present + k);
    watches.start(name);
    return kube.createWidget(name, `hello-${present + k}`);
  });
  const all = await proc.marker("all-reconciled", ctx.timeoutMs);
  // An unref'd deadline: once the race is decided, it must not keep the runner alive (it did for
  // up to 10 min after an N = 5,000 run).
  await Promise.race([watches.all, sleep(ctx.timeoutMs, undefined, { ref: false })]);
  tracker.onWidgetConverged = undefined;
  const { stopped, p50Ms, p99Ms, maxMs } = watches.summary();
  const r = {
    changes: changeCount,
    p50Ms,
    p99Ms,
    maxMs,
    allReconciledSeconds: (all - proc.startedAt) / 1000,
  };
  ctx.log(
    `  change during restart: ${stopped}/${changeCount} converged, p50 ${r.p50Ms.toFixed(0)} ms, p99 ${r.p99Ms.toFixed(0)} ms; all reconciled ${r.allReconciledSeconds.toFixed(2)} s`,
  );
  return r;
}

/**
 * Changes the first {@link STREAM_KEYS} Widgets at `rate` per second, restarts the operator 1 s
 * into the stream, and times how long it takes to reconcile every other Widget once.
 */
export async function starvation(ctx: RestartContext, rate: number): Promise<Starvation> {
  const present = await settled(ctx);
  const latencies = new ChangeLatencies(ctx.tracker);
  const stream = changeStream(ctx.kube, Math.min(STREAM_KEYS, present), rate, latencies);
  await sleep(1000);
  const proc = await ctx.restart(present);
  latencies.windowFrom(proc.startedAt, CHANGED_WINDOW_MS);
  const [all] = await Promise.all([
    proc.marker("unchanged-reconciled", STARVATION_CAP_MS).catch(() => Number.POSITIVE_INFINITY),
    untilAfterStart(proc, CHANGED_WINDOW_MS),
  ]);
  const { changes, seconds } = await stream.stop();
  await Promise.race([latencies.all, sleep(ctx.timeoutMs, undefined, { ref: false })]);
  ctx.tracker.onWidgetConverged = undefined;
  const { p50Ms, p99Ms } = latencies.summary();
  const r = {
    changes,
    changesPerSecond: changes / seconds,
    lastLowPrioritySeconds: (all - proc.startedAt) / 1000,
    changedP50Ms: p50Ms,
    changedP99Ms: p99Ms,
  };
  const when = Number.isFinite(all)
    ? `${r.lastLowPrioritySeconds.toFixed(2)} s after the start`
    : `not within ${STARVATION_CAP_MS / 1000} s`;
  ctx.log(
    `  starvation: every unchanged Widget reconciled ${when}, under ${r.changesPerSecond.toFixed(0)} changes/s; changed p50 ${p50Ms.toFixed(0)} ms, p99 ${p99Ms.toFixed(0)} ms`,
  );
  return r;
}

/**
 * Latencies of the stream's changes made in a window: each from its PATCH to the runner seeing
 * its Widget converged with that change's message or a later one's (`stream-<k>`).
 */
class ChangeLatencies {
  /** Widget → its changes not yet seen converged: [k, when made], in order of k. */
  readonly #pending = new Map<string, [number, number][]>();
  readonly #latencies: number[] = [];
  #window = { from: Number.NEGATIVE_INFINITY, to: Number.POSITIVE_INFINITY };
  #stopped = false;
  #resolve: () => void = () => {};
  /** Resolves once no change of the window is pending (checked after the stream stops). */
  readonly all = new Promise<void>((resolve) => {
    this.#resolve = resolve;
  });

  constructor(tracker: Tracker) {
    tracker.onWidgetConverged = (name, at) => {
      const message = tracker.widgets.get(name)?.spec?.message ?? "";
      const k = message.startsWith("stream-") ? Number(message.slice(7)) : -1;
      this.#converged(name, k, at);
    };
  }

  /** Keeps the changes made from `from` (performance.now()) for `ms`. */
  windowFrom(from: number, ms: number): void {
    this.#window = { from, to: from + ms };
  }

  /** Change `k` of Widget `name` is being made now. */
  made(name: string, k: number): void {
    const pending = this.#pending.get(name) ?? [];
    pending.push([k, performance.now()]);
    this.#pending.set(name, pending);
  }

  #converged(name: string, k: number, at: number): void {
    const pending = this.#pending.get(name);
    while (pending?.length && pending[0]![0] <= k) {
      const madeAt = pending.shift()![1];
      if (madeAt >= this.#window.from && madeAt < this.#window.to) this.#latencies.push(at - madeAt);
    }
    if (this.#stopped && this.#inWindow() === 0) this.#resolve();
  }

  /** The stream has stopped: resolves {@link all} once the window's changes are all seen. */
  stop(): void {
    this.#stopped = true;
    if (this.#inWindow() === 0) this.#resolve();
  }

  #inWindow(): number {
    let n = 0;
    for (const pending of this.#pending.values())
      for (const [, madeAt] of pending) if (madeAt >= this.#window.from && madeAt < this.#window.to) n++;
    return n;
  }

  /** p50 and p99 in ms (p99 ∞ when over 1 % of the window's changes were never seen converged). */
  summary(): { p50Ms: number; p99Ms: number } {
    const sorted = [...this.#latencies].sort((a, b) => a - b);
    const lost = this.#inWindow();
    const p99Ms = lost > 0.01 * (sorted.length + lost) ? Number.POSITIVE_INFINITY : percentile(sorted, 99);
    return { p50Ms: percentile(sorted, 50), p99Ms };
  }
}

/**
 * Patches the spec of Widgets 0..keys-1 round robin, the k-th change due at k / rate s (open
 * loop, at most 16 in flight as in the other scenarios), until stopped.
 */
function changeStream(kube: Kube, keys: number, rate: number, latencies: ChangeLatencies) {
  let stopped = false;
  let changes = 0;
  const start = performance.now();
  const running = (async () => {
    const inFlight = new Set<Promise<unknown>>();
    while (!stopped) {
      const due = start + (changes * 1000) / rate;
      if (due > performance.now()) await sleep(due - performance.now());
      if (inFlight.size >= 16) await Promise.race(inFlight);
      const k = changes++;
      latencies.made(widgetName(k % keys), k);
      const p = kube.patchMessage(widgetName(k % keys), `stream-${k}`).finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
    await Promise.all(inFlight);
  })();
  return {
    /** Ends the stream; resolves with the changes made and over how many seconds. */
    async stop() {
      stopped = true;
      await running;
      latencies.stop();
      return { changes, seconds: (performance.now() - start) / 1000 };
    },
  };
}

/**
 * Waits until every Widget is converged (whatever its message) and the operator is quiet;
 * returns how many Widgets there are.
 */
async function settled(ctx: RestartContext): Promise<number> {
  const present = ctx.tracker.widgets.size;
  await ctx.tracker.waitConverged(present, () => true, ctx.timeoutMs);
  await ctx.quiesce();
  return present;
}
