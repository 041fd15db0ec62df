import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeClock } from "../../../src/clock/index.ts";
import { WorkQueue } from "../../../src/queue/index.ts";
import { recordingMetrics } from "./support.ts";

function setup() {
  const clock = new FakeClock(0);
  const { metrics, calls } = recordingMetrics();
  const queue = new WorkQueue({ clock, metrics });
  /** Returns and forgets the calls recorded so far. */
  const take = () => calls.splice(0);
  return { clock, queue, take };
}

describe("WorkQueue metrics", () => {
  it("counts adds and depth, but not adds that collapse into a queued key", () => {
    const { queue, take } = setup();
    queue.add("a", "resync");
    queue.add("a", "watch:Pod");
    queue.add("b", "resync");
    assert.deepEqual(take(), [["added"], ["depth", 1], ["added"], ["depth", 2]]);
  });

  it("reports queue duration on get and work duration on done, in seconds", async () => {
    const { clock, queue, take } = setup();
    queue.add("a", "resync");
    clock.advance(2_000);
    take();
    await queue.get();
    assert.deepEqual(take(), [
      ["depth", 0],
      ["queueDuration", 2],
    ]);
    clock.advance(1_500);
    queue.done("a");
    assert.deepEqual(take(), [["workDuration", 1.5]]);
  });

  it("counts a key added while in flight in the depth, and not again when it is re-queued", async () => {
    const { clock, queue, take } = setup();
    queue.add("a", "resync");
    await queue.get();
    clock.advance(100);
    take();
    queue.add("a", "watch:Pod");
    assert.deepEqual(take(), [["added"], ["depth", 1]]);
    clock.advance(400);
    queue.done("a");
    assert.deepEqual(take(), [["workDuration", 0.5]]);
    await queue.get();
    assert.deepEqual(take(), [
      ["depth", 0],
      ["queueDuration", 0.4],
    ]);
  });

  it("counts a retry for every add with a non-zero delay", () => {
    const { clock, queue, take } = setup();
    queue.addAfter("a", 100, "requeue-after");
    queue.addAfter("a", 50, "requeue-after");
    queue.addRateLimited("b", "retry");
    queue.addAfter("c", 0, "requeue-after");
    assert.deepEqual(take(), [["retried"], ["retried"], ["retried"], ["added"], ["depth", 1]]);
    clock.advance(5);
    assert.deepEqual(take(), [["added"], ["depth", 2]]);
  });

  it("reports depth 0 on shutdown", () => {
    const { queue, take } = setup();
    queue.add("a", "resync");
    take();
    queue.shutDown();
    assert.deepEqual(take(), [["depth", 0]]);
  });

  it("computes unfinished work and the longest running processor on demand", async () => {
    const { clock, queue } = setup();
    assert.equal(queue.unfinishedWorkSeconds(), 0);
    assert.equal(queue.longestRunningProcessorSeconds(), 0);
    queue.add("a", "resync");
    queue.add("b", "resync");
    await queue.get();
    clock.advance(1_500);
    await queue.get();
    clock.advance(1_000);
    assert.equal(queue.unfinishedWorkSeconds(), 3.5);
    assert.equal(queue.longestRunningProcessorSeconds(), 2.5);
    queue.done("a");
    assert.equal(queue.unfinishedWorkSeconds(), 1);
    assert.equal(queue.longestRunningProcessorSeconds(), 1);
    queue.done("b");
    assert.equal(queue.unfinishedWorkSeconds(), 0);
    assert.equal(queue.longestRunningProcessorSeconds(), 0);
  });
});
