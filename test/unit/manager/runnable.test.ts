import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { pino } from "pino";
import type { Client } from "../../../src/client/index.ts";
import { FakeClock } from "../../../src/clock/index.ts";
import { hasCode } from "../../../src/errors/index.ts";
import { DuplicateRunnableError, type Runnable } from "../../../src/manager/index.ts";
import { drained, keepRunning, type RunnableMetrics } from "../../../src/manager/runnable.ts";
import { deferred, flush, until } from "../controller/support.ts";
import { fakeManager } from "./support.ts";

const logger = pino({ level: "silent" });

/** Metrics that remember what they were told. */
function recordingMetrics() {
  const seen = { running: [] as boolean[], failed: 0 };
  const metrics: RunnableMetrics = {
    running: (_, running) => seen.running.push(running),
    failed: () => seen.failed++,
  };
  return { seen, metrics };
}

function context(signal: AbortSignal) {
  return { signal, client: {} as Client, logger };
}

describe("keepRunning", () => {
  it("starts a run that threw again after a backoff that doubles, and stops on abort", async () => {
    const clock = new FakeClock();
    const { seen, metrics } = recordingMetrics();
    const stop = new AbortController();
    let runs = 0;
    const runnable: Runnable = {
      name: "flaky",
      start: () => {
        runs++;
        throw new Error("boom");
      },
    };
    const done = keepRunning(runnable, context(stop.signal), { clock, metrics });
    await until(() => runs === 1 && clock.pending === 1);
    // The delays are jittered in [d/2, d], d = 1 s, then 2 s.
    clock.advance(499);
    await flush();
    assert.equal(runs, 1, "the first retry waits at least 0.5 s");
    clock.advance(501);
    await until(() => runs === 2 && clock.pending === 1);
    clock.advance(999);
    await flush();
    assert.equal(runs, 2, "the second retry waits at least 1 s");
    clock.advance(1_001);
    await until(() => runs === 3);
    assert.equal(seen.failed, 3);
    stop.abort();
    await done;
    assert.deepEqual(seen.running, [true, false, true, false, true, false]);
  });

  it("ends when a run returns, without starting it again", async () => {
    const clock = new FakeClock();
    const { seen, metrics } = recordingMetrics();
    let runs = 0;
    const runnable: Runnable = { name: "once", start: () => void runs++ };
    await keepRunning(runnable, context(new AbortController().signal), { clock, metrics });
    assert.equal(runs, 1);
    assert.equal(seen.failed, 0);
  });

  it("does not count a throw that follows the abort as a failure", async () => {
    const clock = new FakeClock();
    const { seen, metrics } = recordingMetrics();
    const stop = new AbortController();
    const runnable: Runnable = {
      name: "stops-by-throwing",
      start: ({ signal }) =>
        new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
    };
    const done = keepRunning(runnable, context(stop.signal), { clock, metrics });
    stop.abort();
    await done;
    assert.equal(seen.failed, 0);
  });
});

describe("drained", () => {
  it("waits for work that returns after the abort", async () => {
    const clock = new FakeClock();
    const stop = new AbortController();
    const work = deferred();
    let abandoned = false;
    let finished = false;
    void drained(work.promise, stop.signal, 5_000, clock, () => {
      abandoned = true;
    }).then(() => {
      finished = true;
    });
    stop.abort();
    await flush();
    clock.advance(4_000);
    work.resolve();
    await until(() => finished);
    assert.equal(abandoned, false);
    assert.equal(clock.pending, 0, "the grace timer is cancelled");
  });

  it("gives up on work that ignores the abort once the grace passed", async () => {
    const clock = new FakeClock();
    const stop = new AbortController();
    let abandoned = false;
    const done = drained(new Promise(() => {}), stop.signal, 5_000, clock, () => {
      abandoned = true;
    });
    stop.abort();
    await until(() => clock.pending === 1);
    clock.advance(5_000);
    await done;
    assert.equal(abandoned, true);
  });
});

describe("Manager runnables", () => {
  const manager = async () => (await fakeManager()).manager;

  it("runs leader-only and everywhere runnables once the caches synced, and waits for them on shutdown", async () => {
    const m = await manager();
    const started: string[] = [];
    const ended: string[] = [];
    const runnable = (name: string, leaderOnly?: boolean): Runnable => ({
      name,
      leaderOnly,
      start: async ({ signal }) => {
        started.push(name);
        await new Promise((resolve) => signal.addEventListener("abort", resolve));
        ended.push(name);
      },
    });
    m.add(runnable("leader"));
    m.add(runnable("everywhere", false));
    const stop = new AbortController();
    const running = m.start(stop.signal);
    await until(() => started.length === 2);
    assert.deepEqual(started.sort(), ["everywhere", "leader"]);
    stop.abort();
    await running;
    assert.deepEqual(ended.sort(), ["everywhere", "leader"]);
    const metrics = await m.metrics.registry.getSingleMetricAsString("kubeloop_runnable_running");
    assert.match(metrics, /kubeloop_runnable_running\{runnable="leader"\} 0/);
  });

  it("refuses a second runnable of the same name with a coded error", async () => {
    const m = await manager();
    m.add({ name: "report", start: () => {} });
    assert.throws(
      () => m.add({ name: "report", start: () => {} }),
      (err) => err instanceof DuplicateRunnableError && hasCode(err, "KL_DUPLICATE_RUNNABLE"),
    );
  });
});
