import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeClock, systemClock } from "../../../src/clock/index.ts";
import { chainedTimer, maxHostDelayMs, type TimerHost } from "../../../src/clock/internal/timers.ts";

const thirtyDaysMs = 30 * 24 * 3_600_000;

/** A host whose time moves only when a scheduled timer runs; records every delay asked for. */
function fakeHost() {
  let now = 0;
  let next = 0;
  const scheduled = new Map<number, { fn: () => void; at: number }>();
  const delays: number[] = [];
  const host: TimerHost = {
    now: () => now,
    setTimeout(fn, ms) {
      delays.push(ms);
      scheduled.set(++next, { fn, at: now + ms });
      return next;
    },
    clearTimeout: (handle) => scheduled.delete(handle as number),
    unref() {},
  };
  /** Runs the one pending timer, moving time to when it was due. */
  const runNext = () => {
    const [handle, timer] = [...scheduled][0] ?? assert.fail("no timer is pending");
    scheduled.delete(handle);
    now = timer.at;
    timer.fn();
  };
  return { host, delays, runNext, pending: () => scheduled.size, now: () => now };
}

/** Process warnings emitted while `body` runs and the callbacks it queued settle. */
async function warningsDuring(body: () => void): Promise<string[]> {
  const warnings: string[] = [];
  const record = (warning: Error) => warnings.push(warning.name);
  process.on("warning", record);
  try {
    body();
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off("warning", record);
  }
  return warnings;
}

describe("systemClock timers", () => {
  it("chains host timers of at most 2^31-1 ms for a 30-day delay, firing at 30 days", () => {
    const { host, delays, runNext, pending, now } = fakeHost();
    let fired = false;
    chainedTimer(
      host,
      thirtyDaysMs,
      () => {
        fired = true;
      },
      false,
    );
    assert.deepEqual(delays, [maxHostDelayMs]);
    runNext();
    assert.equal(fired, false, "not after 24.8 days");
    assert.deepEqual(delays, [maxHostDelayMs, thirtyDaysMs - maxHostDelayMs]);
    runNext();
    assert.equal(fired, true);
    assert.equal(now(), thirtyDaysMs);
    assert.equal(pending(), 0);
  });

  it("schedules a delay within the limit as one host timer, and cancels a chained one", () => {
    const { host, delays, pending } = fakeHost();
    chainedTimer(host, 1_000, () => {}, true);
    assert.deepEqual(delays, [1_000]);
    const long = chainedTimer(host, Number.POSITIVE_INFINITY, () => assert.fail("never fires"), false);
    assert.equal(delays[1], maxHostDelayMs);
    long.cancel();
    assert.equal(pending(), 1);
  });

  it("sets a 30-day timer and sleep without Node's TimeoutOverflowWarning", async () => {
    const stop = new AbortController();
    const warnings = await warningsDuring(() => {
      systemClock.setTimer(thirtyDaysMs, () => assert.fail("fired early")).cancel();
      systemClock.sleep(thirtyDaysMs, stop.signal).catch(() => {});
      stop.abort();
    });
    assert.deepEqual(warnings, []);
  });

  it("reads monotonic time from performance.now", () => {
    const before = performance.now();
    const read = systemClock.monotonicMs();
    assert.ok(read >= before && read <= performance.now());
  });
});

describe("FakeClock", () => {
  it("fires a 30-day timer at 30 days, not before", () => {
    const clock = new FakeClock(1_000);
    let fired = false;
    clock.setTimer(thirtyDaysMs, () => {
      fired = true;
    });
    clock.advance(maxHostDelayMs + 1);
    assert.equal(fired, false);
    clock.advance(thirtyDaysMs - maxHostDelayMs - 2);
    assert.equal(fired, false);
    clock.advance(1);
    assert.equal(fired, true);
    assert.equal(clock.now(), 1_000 + thirtyDaysMs);
  });

  it("reads delays as systemClock does: NaN and negative fire at once, Infinity never", () => {
    const clock = new FakeClock();
    const fired: string[] = [];
    clock.setTimer(Number.NaN, () => fired.push("NaN"));
    clock.setTimer(-5, () => fired.push("negative"));
    clock.setTimer(Number.POSITIVE_INFINITY, () => fired.push("Infinity"));
    clock.advance(0);
    assert.deepEqual(fired, ["NaN", "negative"]);
    clock.advance(10 * thirtyDaysMs);
    assert.equal(clock.pending, 1);
  });

  it("moves wall and monotonic time together, and the wall clock alone on a jump", () => {
    const clock = new FakeClock(5_000);
    let fired = false;
    clock.setTimer(100, () => {
      fired = true;
    });
    clock.advance(50);
    assert.deepEqual([clock.now(), clock.monotonicMs()], [5_050, 50]);
    clock.jumpWallClock(3_600_000);
    assert.deepEqual([clock.now(), clock.monotonicMs()], [3_605_050, 50]);
    assert.equal(fired, false, "a wall-clock jump fires no timer");
    clock.jumpWallClock(-7_200_000);
    clock.advance(50);
    assert.equal(fired, true, "timers run on monotonic time");
    assert.equal(clock.now(), 5_100 - 3_600_000);
  });
});
