import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeClock } from "../../../src/clock/index.ts";
import { Backoff } from "../../../src/watch/index.ts";
import { flush } from "./support.ts";

describe("Backoff", () => {
  it("doubles from the initial delay up to the maximum", () => {
    const backoff = new Backoff(100, 1_000, () => 1);
    assert.deepEqual(
      Array.from({ length: 6 }, () => backoff.next()),
      [100, 200, 400, 800, 1_000, 1_000],
    );
  });

  it("draws each delay uniformly between half and the whole of the current step", () => {
    assert.equal(new Backoff(800, 30_000, () => 0).next(), 400);
    assert.equal(new Backoff(800, 30_000, () => 0.5).next(), 600);
    const low = new Backoff(800, 30_000, () => 0);
    low.next();
    assert.equal(low.next(), 800, "the step doubles whatever the jitter");
  });

  it("caps one delay without stopping the sequence", () => {
    const backoff = new Backoff(100, 1_000, () => 1);
    const delays = [backoff.next(), backoff.next(150), backoff.next(150), backoff.next()];
    assert.deepEqual(delays, [100, 150, 150, 800]);
    assert.equal(new Backoff(800, 30_000, () => 0).next(200), 100, "jittered below the cap as ever");
  });

  it("starts over after reset", () => {
    const backoff = new Backoff(100, 1_000, () => 1);
    backoff.next();
    backoff.next();
    backoff.reset();
    assert.equal(backoff.next(), 100);
  });

  it("defaults to 800 ms doubling up to 30 s", () => {
    const backoff = new Backoff(undefined, undefined, () => 1);
    const delays = Array.from({ length: 8 }, () => backoff.next());
    assert.deepEqual(delays, [800, 1_600, 3_200, 6_400, 12_800, 25_600, 30_000, 30_000]);
  });

  it("waits the next delay on the clock", async () => {
    const clock = new FakeClock();
    const backoff = new Backoff(100, 1_000, () => 1);
    let done = false;
    const waiting = backoff.wait(clock).then(() => {
      done = true;
    });
    clock.advance(99);
    await flush();
    assert.equal(done, false);
    clock.advance(1);
    await waiting;
    assert.equal(done, true);
  });

  it("stops waiting when the signal aborts", async () => {
    const stop = new AbortController();
    const waiting = new Backoff().wait(new FakeClock(), stop.signal);
    stop.abort(new Error("stop"));
    await assert.rejects(waiting, /stop/);
  });
});
