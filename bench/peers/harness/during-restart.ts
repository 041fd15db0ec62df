/**
 * Work that arrives while a restarted operator walks through every object it already has: the
 * scenarios a priority queue exists for. Both start from every Widget present and converged, stop
 * the operator and start it again.
 *
 * - change during restart: `changeCount` new Widgets are created 0.5 s after the process starts;
 *   each is timed from its create to the runner seeing it converged (p50, p99, max).
 * - starvation: the runner changes the specs of the first `STREAM_KEYS` Widgets at a steady rate,
 *   above what the operator and apiserver of this machine serve, from 1 s before the restart until
 *   every Widget has been reconciled once (at most `STARVATION_CAP_MS`): normal-priority work that
 *   never runs out. Reported is when the last Widget was reconciled — the last low-priority one —
 *   or ∞ when that did not happen within the cap, and the stream's achieved rate.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { ContenderProcess } from "./contenders.ts";
import { type Kube, widgetName } from "./kube.ts";
import { Stopwatches } from "./stopwatches.ts";
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
  /** From process start until every Widget present at the start was reconciled once. */
  lastLowPrioritySeconds: number;
}

/** Delay from the process start to the first change, as the scenario is defined. */
const CHANGE_AFTER_MS = 500;

/** Widgets the starvation stream changes, round robin; the others are only in the initial list. */
const STREAM_KEYS = 100;

/** How long the starvation stream runs at most, after the restart. */
const STARVATION_CAP_MS = 60_000;

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
 * into the stream, and times how long it takes to reconcile every Widget once.
 */
export async function starvation(ctx: RestartContext, rate: number): Promise<Starvation> {
  const present = await settled(ctx);
  const stream = changeStream(ctx.kube, Math.min(STREAM_KEYS, present), rate);
  await sleep(1000);
  const proc = await ctx.restart(present);
  const all = await proc.marker("all-reconciled", STARVATION_CAP_MS).catch(() => Number.POSITIVE_INFINITY);
  const { changes, seconds } = await stream.stop();
  const r = {
    changes,
    changesPerSecond: changes / seconds,
    lastLowPrioritySeconds: (all - proc.startedAt) / 1000,
  };
  const when = Number.isFinite(all)
    ? `${r.lastLowPrioritySeconds.toFixed(2)} s after the start`
    : `not within ${STARVATION_CAP_MS / 1000} s`;
  ctx.log(`  starvation: every Widget reconciled ${when}, under ${r.changesPerSecond.toFixed(0)} changes/s`);
  return r;
}

/**
 * Patches the spec of Widgets 0..keys-1 round robin, the k-th change due at k / rate s (open
 * loop, at most 16 in flight as in the other scenarios), until stopped.
 */
function changeStream(kube: Kube, keys: number, rate: number) {
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
