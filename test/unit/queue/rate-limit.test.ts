import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeClock } from "../../../src/clock/index.ts";
import {
  bucketRateLimiter,
  defaultControllerRateLimiter,
  exponentialRateLimiter,
  InvalidQueueArgumentError,
  maxOfRateLimiters,
  type RateLimiter,
} from "../../../src/queue/index.ts";

function delays(limiter: RateLimiter, key: string, times: number): number[] {
  return Array.from({ length: times }, () => limiter.when(key));
}

describe("exponentialRateLimiter", () => {
  it("doubles from 5 ms per failure of a key and caps at 1000 s", () => {
    const limiter = exponentialRateLimiter();
    const expected = [...Array.from({ length: 18 }, (_, n) => 5 * 2 ** n), 1_000_000, 1_000_000];
    assert.deepEqual(delays(limiter, "a", 20), expected);
    assert.equal(expected[17], 655_360);
    assert.equal(limiter.retries("a"), 20);
  });

  it("keeps each key's backoff separate and resets it on forget", () => {
    const limiter = exponentialRateLimiter();
    delays(limiter, "a", 3);
    assert.equal(limiter.when("b"), 5);
    limiter.forget("a");
    assert.equal(limiter.retries("a"), 0);
    assert.deepEqual(delays(limiter, "a", 2), [5, 10]);
    assert.equal(limiter.when("b"), 10);
  });

  it("takes its base and cap from options", () => {
    assert.deepEqual(
      delays(exponentialRateLimiter({ baseDelayMs: 100, maxDelayMs: 300 }), "a", 4),
      [100, 200, 300, 300],
    );
  });

  it("rejects a negative base or a cap below the base", () => {
    assert.throws(() => exponentialRateLimiter({ baseDelayMs: -1 }), InvalidQueueArgumentError);
    assert.throws(
      () => exponentialRateLimiter({ baseDelayMs: 10, maxDelayMs: 5 }),
      (err) => err instanceof InvalidQueueArgumentError && err.argument === "maxDelayMs",
    );
  });
});

describe("bucketRateLimiter", () => {
  it("lets a burst through, then spaces keys 1/qps apart", () => {
    const limiter = bucketRateLimiter(new FakeClock(0), { qps: 10, burst: 100 });
    const burst = delays(limiter, "any", 100);
    assert.ok(burst.every((ms) => ms === 0));
    assert.deepEqual(delays(limiter, "other", 3), [100, 200, 300]);
    assert.equal(limiter.retries("other"), 0);
  });

  it("refills at qps as time passes, up to the burst", () => {
    const clock = new FakeClock(0);
    const limiter = bucketRateLimiter(clock, { qps: 10, burst: 2 });
    assert.deepEqual(delays(limiter, "a", 4), [0, 0, 100, 200]);
    clock.advance(250);
    assert.equal(limiter.when("a"), 50);
    clock.advance(3_600_000);
    assert.deepEqual(delays(limiter, "a", 3), [0, 0, 100]);
  });

  it("defaults to 10 qps and a burst of 100", () => {
    const limiter = bucketRateLimiter(new FakeClock(0));
    assert.equal(delays(limiter, "a", 100).at(-1), 0);
    assert.equal(limiter.when("a"), 100);
  });

  it("rejects a qps of zero and a burst below one", () => {
    const clock = new FakeClock(0);
    assert.throws(() => bucketRateLimiter(clock, { qps: 0 }), /qps is 0/);
    assert.throws(
      () => bucketRateLimiter(clock, { burst: 0.5 }),
      (err) => err instanceof InvalidQueueArgumentError,
    );
  });
});

describe("maxOfRateLimiters", () => {
  it("asks every limiter, returns the longest delay and the highest retry count, and forgets in all", () => {
    const forgotten: string[] = [];
    const fixed = (ms: number, retries: number): RateLimiter => ({
      when: () => ms,
      forget: (key) => forgotten.push(`${ms}:${key}`),
      retries: () => retries,
    });
    const limiter = maxOfRateLimiters(fixed(30, 1), fixed(70, 4), fixed(50, 2));
    assert.equal(limiter.when("a"), 70);
    assert.equal(limiter.retries("a"), 4);
    limiter.forget("a");
    assert.deepEqual(forgotten, ["30:a", "70:a", "50:a"]);
  });

  it("records the failure in each limiter on every call", () => {
    const limiter = maxOfRateLimiters(
      exponentialRateLimiter(),
      bucketRateLimiter(new FakeClock(0), { qps: 1, burst: 1 }),
    );
    assert.deepEqual(delays(limiter, "a", 3), [5, 1000, 2000]);
    assert.equal(limiter.retries("a"), 3);
  });
});

describe("defaultControllerRateLimiter", () => {
  it("backs off per key, and spaces keys by the bucket once the burst is spent", () => {
    const limiter = defaultControllerRateLimiter(new FakeClock(0));
    assert.deepEqual(delays(limiter, "a", 3), [5, 10, 20]);
    const others = Array.from({ length: 97 }, (_, i) => limiter.when(`k${i}`));
    assert.ok(
      others.every((ms) => ms === 5),
      "the burst of 100 covers the first 100 failures",
    );
    assert.equal(limiter.when("late"), 100);
    limiter.forget("a");
    assert.equal(limiter.retries("a"), 0);
  });
});
