import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeClock } from "../../../src/clock/index.ts";
import { exponentialRateLimiter, WorkQueue } from "../../../src/queue/index.ts";
import { isSettled } from "./support.ts";

function setup() {
  const clock = new FakeClock(0);
  const queue = new WorkQueue({ clock, rateLimiter: exponentialRateLimiter({ baseDelayMs: 10 }) });
  return { clock, queue };
}

describe("WorkQueue: delayed adds", () => {
  it("queues a key only once its delay has passed", async () => {
    const { clock, queue } = setup();
    queue.addAfter("a", 100, "requeue-after");
    clock.advance(99);
    assert.equal(queue.length, 0);
    clock.advance(1);
    assert.equal(queue.length, 1);
    const item = await queue.get();
    assert.deepEqual(item?.reasons, [{ reason: "requeue-after", count: 1 }]);
    assert.equal(item?.queuedAt, 100);
  });

  it("wakes a waiting consumer when a delay passes", async () => {
    const { clock, queue } = setup();
    const next = queue.get();
    queue.addAfter("a", 50, "requeue-after");
    assert.equal(await isSettled(next), false);
    clock.advance(50);
    assert.equal((await next)?.key, "a");
  });

  it("keeps the sooner time when a waiting key is added again sooner, and both reasons", async () => {
    const { clock, queue } = setup();
    queue.addAfter("a", 100, "requeue-after");
    queue.addAfter("a", 30, "retry");
    clock.advance(30);
    assert.equal(queue.length, 1);
    const item = await queue.get();
    assert.deepEqual(item?.reasons, [
      { reason: "requeue-after", count: 1 },
      { reason: "retry", count: 1 },
    ]);
    queue.done("a");
    clock.advance(200);
    assert.equal(queue.length, 0, "the later time must not fire as well");
    assert.equal(clock.pending, 0);
  });

  it("keeps the sooner time when a waiting key is added again later", () => {
    const { clock, queue } = setup();
    queue.addAfter("a", 30, "retry");
    queue.addAfter("a", 100, "requeue-after");
    clock.advance(30);
    assert.equal(queue.length, 1);
    assert.equal(clock.pending, 0);
  });

  it("queues a waiting key at once on an immediate add, and again when its delay passes", async () => {
    const { clock, queue } = setup();
    queue.addAfter("a", 100, "requeue-after");
    queue.add("a", "watch:Secret");
    assert.equal(queue.length, 1);
    assert.deepEqual((await queue.get())?.reasons, [{ reason: "watch:Secret", count: 1 }]);
    queue.done("a");
    clock.advance(100);
    assert.deepEqual((await queue.get())?.reasons, [{ reason: "requeue-after", count: 1 }]);
  });

  it("collapses a delayed key into the same key already queued", async () => {
    const { clock, queue } = setup();
    queue.add("a", "watch:Secret");
    queue.addAfter("a", 10, "requeue-after");
    clock.advance(10);
    assert.equal(queue.length, 1);
    const item = await queue.get();
    assert.deepEqual(item?.reasons, [
      { reason: "watch:Secret", count: 1 },
      { reason: "requeue-after", count: 1 },
    ]);
    assert.equal(item?.queuedAt, 0);
  });

  it("holds back a delayed key that comes due while it is in flight", async () => {
    const { clock, queue } = setup();
    queue.add("a", "watch:Secret");
    await queue.get();
    queue.addAfter("a", 10, "requeue-after");
    clock.advance(10);
    assert.equal(queue.length, 0);
    queue.done("a");
    assert.equal(queue.length, 1);
  });

  it("queues at once for a zero or negative delay", () => {
    const { queue } = setup();
    queue.addAfter("a", 0, "requeue-after");
    queue.addAfter("b", -5, "requeue-after");
    assert.equal(queue.length, 2);
  });
});

describe("WorkQueue: rate-limited adds", () => {
  it("delays by the rate limiter, backs off on each retry and resets on forget", async () => {
    const { clock, queue } = setup();
    const readyAfter = async (): Promise<number> => {
      const start = clock.now();
      queue.addRateLimited("a", "retry");
      while (queue.length === 0) clock.advance(1);
      queue.done((await queue.get())?.key ?? "");
      return clock.now() - start;
    };
    assert.equal(await readyAfter(), 10);
    assert.equal(await readyAfter(), 20);
    assert.equal(await readyAfter(), 40);
    assert.equal(queue.retries("a"), 3);
    queue.forget("a");
    assert.equal(queue.retries("a"), 0);
    assert.equal(await readyAfter(), 10);
  });
});
