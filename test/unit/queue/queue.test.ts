import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeClock } from "../../../src/clock/index.ts";
import { hasCode } from "../../../src/errors/index.ts";
import { WorkQueue } from "../../../src/queue/index.ts";
import { flush, isSettled } from "./support.ts";

function newQueue(clock = new FakeClock(1_000)): WorkQueue {
  return new WorkQueue({ clock });
}

describe("WorkQueue: keys, dedup and reasons", () => {
  it("hands out an added key with its reason and times", async () => {
    const clock = new FakeClock(1_000);
    const queue = newQueue(clock);
    queue.add("default/web", "watch:ConfigMap");
    clock.advance(250);
    const item = await queue.get();
    assert.deepEqual(item, {
      key: "default/web",
      reasons: [{ reason: "watch:ConfigMap", count: 1 }],
      queuedAt: 1_000,
      startedAt: 1_250,
      priority: 0,
    });
  });

  it("collapses adds of a queued key and accumulates their reasons", async () => {
    const queue = newQueue();
    queue.add("ns/a", "watch:ConfigMap");
    queue.add("ns/b", "resync");
    queue.add("ns/a", "owner:Job");
    queue.add("ns/a", "watch:ConfigMap");
    assert.equal(queue.length, 2);
    const a = await queue.get();
    assert.equal(a?.key, "ns/a");
    assert.deepEqual(a?.reasons, [
      { reason: "watch:ConfigMap", count: 2 },
      { reason: "owner:Job", count: 1 },
    ]);
    const b = await queue.get();
    assert.deepEqual(b?.reasons, [{ reason: "resync", count: 1 }]);
    assert.equal(queue.length, 0);
  });

  it("hands keys out in the order they became ready", async () => {
    const queue = newQueue();
    for (const key of ["c", "a", "b", "a"]) queue.add(key, "resync");
    const order = [];
    for (let i = 0; i < 3; i++) order.push((await queue.get())?.key);
    assert.deepEqual(order, ["c", "a", "b"]);
  });

  it("starts a fresh reason tally after a key is handed out", async () => {
    const queue = newQueue();
    queue.add("a", "resync");
    queue.done((await queue.get())?.key ?? "");
    queue.add("a", "retry");
    assert.deepEqual((await queue.get())?.reasons, [{ reason: "retry", count: 1 }]);
  });

  it("rejects a delay that is not a finite number", () => {
    const queue = newQueue();
    assert.throws(
      () => queue.addAfter("a", Number.NaN, "retry"),
      (err) => hasCode(err, "KL_QUEUE_INVALID_ARGUMENT"),
    );
    assert.equal(queue.length, 0);
  });
});

describe("WorkQueue: per-key serialisation", () => {
  it("holds back a key added while in flight and queues it exactly once after done", async () => {
    const clock = new FakeClock(0);
    const queue = newQueue(clock);
    queue.add("a", "watch:Pod");
    await queue.get();
    clock.advance(10);
    queue.add("a", "watch:Pod");
    queue.add("a", "owner:Job");
    queue.add("a", "watch:Pod");
    assert.equal(queue.length, 0);
    const next = queue.get();
    assert.equal(await isSettled(next), false, "a key in flight must not be handed out again");
    queue.done("a");
    const again = await next;
    assert.equal(again?.key, "a");
    assert.equal(again?.queuedAt, 10);
    assert.deepEqual(again?.reasons, [
      { reason: "watch:Pod", count: 2 },
      { reason: "owner:Job", count: 1 },
    ]);
    queue.done("a");
    assert.equal(queue.length, 0);
  });

  it("does not queue a key again after done when nobody added it meanwhile", async () => {
    const queue = newQueue();
    queue.add("a", "resync");
    await queue.get();
    queue.done("a");
    assert.equal(queue.length, 0);
    assert.equal(await isSettled(queue.get()), false);
  });

  it("ignores done for a key that is not in flight", async () => {
    const queue = newQueue();
    queue.add("a", "resync");
    queue.done("a");
    queue.done("never-added");
    assert.equal(queue.length, 1);
    assert.equal((await queue.get())?.key, "a");
    assert.equal(queue.length, 0);
  });

  it("serves waiting consumers in arrival order, one key each", async () => {
    const queue = newQueue();
    const first = queue.get();
    const second = queue.get();
    const third = queue.get();
    queue.add("x", "resync");
    queue.add("y", "resync");
    assert.equal((await first)?.key, "x");
    assert.equal((await second)?.key, "y");
    assert.equal(await isSettled(third), false);
    queue.add("z", "resync");
    assert.equal((await third)?.key, "z");
  });

  it("never hands one key to two of several concurrent consumers", async () => {
    const clock = new FakeClock(0);
    const queue = newQueue(clock);
    const keys = ["ns/a", "ns/b", "ns/c"];
    const inFlight = new Set<string>();
    const processed = new Map<string, number>();
    let overlaps = 0;
    let mostAtOnce = 0;
    const worker = async () => {
      for (let item = await queue.get(); item; item = await queue.get()) {
        if (inFlight.has(item.key)) overlaps++;
        inFlight.add(item.key);
        mostAtOnce = Math.max(mostAtOnce, inFlight.size);
        await clock.sleep(7);
        inFlight.delete(item.key);
        processed.set(item.key, (processed.get(item.key) ?? 0) + 1);
        queue.done(item.key);
      }
    };
    const workers = Array.from({ length: 4 }, worker);
    for (let ms = 0; ms < 100; ms++) {
      for (const key of keys) queue.add(key, "watch:Pod");
      clock.advance(1);
      await flush();
    }
    queue.shutDown();
    clock.advance(10);
    await Promise.all(workers);
    assert.equal(overlaps, 0);
    assert.equal(mostAtOnce, keys.length, "all three keys should have been processed side by side");
    for (const key of keys) {
      // 100 ms of 7 ms runs, back to back: at most 15 runs per key, and at least 13.
      const runs = processed.get(key) ?? 0;
      assert.ok(runs >= 13 && runs <= 15, `${key} ran ${runs} times`);
    }
  });
});

describe("WorkQueue: get and abort", () => {
  it("rejects get with the signal's reason and gives the key to the next consumer", async () => {
    const queue = newQueue();
    const controller = new AbortController();
    const aborted = queue.get(controller.signal);
    controller.abort(new Error("stopping"));
    await assert.rejects(aborted, /stopping/);
    queue.add("a", "resync");
    assert.equal(queue.length, 1, "the aborted consumer must not take the key");
    assert.equal((await queue.get())?.key, "a");
  });

  it("rejects get at once when the signal is already aborted", async () => {
    const queue = newQueue();
    queue.add("a", "resync");
    await assert.rejects(queue.get(AbortSignal.abort(new Error("gone"))), /gone/);
    assert.equal(queue.length, 1);
  });
});
