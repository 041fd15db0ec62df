import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeClock } from "../../../src/clock/index.ts";
import { WorkQueue } from "../../../src/queue/index.ts";
import { isSettled } from "./support.ts";

function setup() {
  const clock = new FakeClock(0);
  return { clock, queue: new WorkQueue({ clock }) };
}

describe("WorkQueue.shutDown", () => {
  it("resolves a waiting consumer with undefined", async () => {
    const { queue } = setup();
    const waiting = queue.get();
    queue.shutDown();
    assert.equal(await waiting, undefined);
  });

  it("drops queued and delayed keys, and every later get resolves undefined", async () => {
    const { clock, queue } = setup();
    queue.add("a", "resync");
    queue.addAfter("b", 10, "requeue-after");
    queue.shutDown();
    assert.equal(queue.length, 0);
    assert.equal(clock.pending, 0, "the delayed key's timer is cancelled");
    assert.equal(await queue.get(), undefined);
    assert.equal(await queue.get(), undefined);
  });

  it("ignores adds after shutdown", async () => {
    const { clock, queue } = setup();
    queue.shutDown();
    queue.add("a", "resync");
    queue.addAfter("b", 10, "requeue-after");
    queue.addRateLimited("c", "retry");
    assert.equal(queue.length, 0);
    assert.equal(clock.pending, 0);
    assert.equal(queue.retries("c"), 0, "no failure is recorded for an ignored add");
    assert.equal(await queue.get(), undefined);
  });

  it("does not queue again a key added while it was in flight", async () => {
    const { queue } = setup();
    queue.add("a", "resync");
    await queue.get();
    queue.add("a", "watch:Pod");
    queue.shutDown();
    queue.done("a");
    assert.equal(queue.length, 0);
    assert.equal(await queue.get(), undefined);
  });
});

describe("WorkQueue.shutDownWithDrain", () => {
  it("still hands out queued keys, and resolves once they and the keys in flight are done", async () => {
    const { queue } = setup();
    queue.add("a", "resync");
    queue.add("b", "resync");
    await queue.get();
    const drained = queue.shutDownWithDrain();
    queue.add("late", "resync");
    const b = await queue.get();
    assert.equal(b?.key, "b");
    assert.equal(await queue.get(), undefined, "nothing is left to hand out");
    queue.done("a");
    assert.equal(await isSettled(drained), false, "b is still in flight");
    queue.done("b");
    await drained;
  });

  it("hands out a key that was added while in flight before the drain began", async () => {
    const { queue } = setup();
    queue.add("a", "resync");
    await queue.get();
    queue.add("a", "watch:Pod");
    const drained = queue.shutDownWithDrain();
    const waiting = queue.get();
    assert.equal(await isSettled(waiting), false, "a will be queued again on done");
    queue.done("a");
    const again = await waiting;
    assert.deepEqual(again?.reasons, [{ reason: "watch:Pod", count: 1 }]);
    assert.equal(await isSettled(drained), false);
    queue.done("a");
    await drained;
    assert.equal(await queue.get(), undefined);
  });

  it("resolves at once when nothing is queued or in flight", async () => {
    const { queue } = setup();
    const waiting = queue.get();
    await queue.shutDownWithDrain();
    assert.equal(await waiting, undefined);
  });

  it("rejects with the signal's reason when it aborts before the drain ends", async () => {
    const { queue } = setup();
    queue.add("a", "resync");
    await queue.get();
    const controller = new AbortController();
    const drained = queue.shutDownWithDrain(controller.signal);
    controller.abort(new Error("deadline"));
    await assert.rejects(drained, /deadline/);
    queue.add("b", "resync");
    assert.equal(queue.length, 0, "the queue stays shut down");
  });

  it("stops waiting for in-flight keys once shutDown follows", async () => {
    const { queue } = setup();
    queue.add("a", "resync");
    queue.add("b", "resync");
    await queue.get();
    const drained = queue.shutDownWithDrain();
    queue.shutDown();
    assert.equal(await queue.get(), undefined, "shutDown drops the queued key b");
    assert.equal(await isSettled(drained), false, "a is still in flight");
    queue.done("a");
    await drained;
  });
});
