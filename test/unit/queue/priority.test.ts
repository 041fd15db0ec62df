import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeClock } from "../../../src/clock/index.ts";
import { hasCode } from "../../../src/errors/index.ts";
import {
  exponentialRateLimiter,
  LOW_PRIORITY,
  NORMAL_PRIORITY,
  type QueueMetrics,
  WorkQueue,
} from "../../../src/queue/index.ts";
import { recordingMetrics } from "./support.ts";

function setup(starvationBoundMs?: number, metrics?: QueueMetrics) {
  const clock = new FakeClock(0);
  const rateLimiter = exponentialRateLimiter({ baseDelayMs: 10 });
  const queue = new WorkQueue({ clock, rateLimiter, starvationBoundMs, metrics });
  return { clock, queue };
}

const low = { priority: LOW_PRIORITY };

/** Takes every ready key, marking each done, and returns them in order. */
async function drain(queue: WorkQueue): Promise<string[]> {
  const keys: string[] = [];
  while (queue.length > 0) {
    const item = await queue.get();
    if (!item) break;
    keys.push(item.key);
    queue.done(item.key);
  }
  return keys;
}

describe("WorkQueue: priorities", () => {
  it("exports controller-runtime's priorities", () => {
    assert.equal(NORMAL_PRIORITY, 0);
    assert.equal(LOW_PRIORITY, -100);
  });

  it("hands out the highest priority first, and each priority in order of readiness", async () => {
    const { queue } = setup();
    queue.add("low-1", "resync", low);
    queue.add("normal-1", "watch:Pod");
    queue.add("high", "manual", { priority: 10 });
    queue.add("low-2", "resync", low);
    queue.add("normal-2", "watch:Pod", { priority: NORMAL_PRIORITY });
    assert.deepEqual(await drain(queue), ["high", "normal-1", "normal-2", "low-1", "low-2"]);
  });

  it("tells each item the priority it was handed out with", async () => {
    const { queue } = setup();
    queue.add("a", "resync", low);
    queue.add("b", "watch:Pod");
    assert.equal((await queue.get())?.priority, NORMAL_PRIORITY);
    assert.equal((await queue.get())?.priority, LOW_PRIORITY);
  });

  it("raises a queued key added again at a higher priority to the end of that priority's line", async () => {
    const { queue } = setup();
    queue.add("a", "resync", low);
    queue.add("b", "resync", low);
    queue.add("c", "watch:Pod");
    queue.add("b", "watch:Pod");
    const first = await queue.get();
    assert.equal(first?.key, "c");
    queue.done("c");
    const raised = await queue.get();
    assert.deepEqual(
      { key: raised?.key, priority: raised?.priority, reasons: raised?.reasons },
      {
        key: "b",
        priority: NORMAL_PRIORITY,
        reasons: [
          { reason: "resync", count: 1 },
          { reason: "watch:Pod", count: 1 },
        ],
      },
    );
    queue.done("b");
    assert.deepEqual(await drain(queue), ["a"]);
  });

  it("keeps the higher priority when a queued key is added again at a lower one", async () => {
    const { queue } = setup();
    queue.add("a", "resync", low);
    queue.add("b", "watch:Pod");
    queue.add("b", "resync", low);
    const item = await queue.get();
    assert.equal(item?.key, "b");
    assert.equal(item?.priority, NORMAL_PRIORITY);
  });

  it("queues a key added in flight again on done, at the highest priority it was added with", async () => {
    const { queue } = setup();
    queue.add("a", "resync", low);
    const first = await queue.get();
    assert.equal(first?.priority, LOW_PRIORITY);
    queue.add("a", "watch:Pod");
    queue.add("a", "resync", low);
    queue.add("b", "resync", low);
    assert.equal(queue.length, 1, "a stays held back while in flight");
    queue.done("a");
    const again = await queue.get();
    assert.equal(again?.key, "a", "a, raised to normal, goes before b, queued earlier at low");
    assert.equal(again?.priority, NORMAL_PRIORITY);
  });

  it("keeps a low priority across a requeue when only low adds came in flight", async () => {
    const { queue } = setup();
    queue.add("a", "resync", low);
    const item = await queue.get();
    queue.add("a", "retry", { priority: item?.priority });
    queue.add("b", "watch:Pod");
    queue.done("a");
    assert.deepEqual(await drain(queue), ["b", "a"]);
  });

  it("applies a delayed add's priority once the delay passes", async () => {
    const { clock, queue } = setup();
    queue.add("a", "resync", low);
    queue.addAfter("b", 100, "requeue-after", { priority: 5 });
    queue.addRateLimited("c", "retry", low);
    clock.advance(10);
    assert.equal(queue.length, 2, "c is ready after its 10 ms backoff");
    clock.advance(90);
    assert.deepEqual(await drain(queue), ["b", "a", "c"]);
  });

  it("keeps the higher priority and the sooner time when a delayed key is added again", async () => {
    const { clock, queue } = setup();
    queue.addAfter("a", 50, "retry", low);
    queue.addAfter("a", 200, "requeue-after");
    queue.addAfter("b", 100, "requeue-after", low);
    queue.addAfter("b", 30, "retry", low);
    queue.add("c", "resync", low);
    clock.advance(50);
    const a = await queue.get();
    assert.equal(a?.key, "a", "a became ready at 50 ms, at normal priority");
    assert.equal(a?.priority, NORMAL_PRIORITY);
    assert.equal(clock.pending, 0, "neither later time is still waiting");
    assert.deepEqual(await drain(queue), ["c", "b"], "b became ready at 30 ms, after c");
  });

  it("raises a queued key when a delayed add of it at a higher priority passes", async () => {
    const { clock, queue } = setup();
    queue.add("a", "resync", low);
    queue.add("b", "resync", low);
    queue.addAfter("b", 10, "requeue-after", { priority: 1 });
    clock.advance(10);
    const item = await queue.get();
    assert.equal(item?.key, "b");
    assert.equal(item?.priority, 1);
  });

  it("rejects a priority that is not a finite number, and a bad starvation bound", () => {
    const { queue } = setup();
    for (const priority of [Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(
        () => queue.add("a", "x", { priority }),
        (err) => hasCode(err, "KL_QUEUE_INVALID_ARGUMENT"),
      );
      assert.throws(
        () => queue.addAfter("a", 10, "x", { priority }),
        (err) => hasCode(err, "KL_QUEUE_INVALID_ARGUMENT"),
      );
    }
    assert.throws(
      () => new WorkQueue({ starvationBoundMs: -1 }),
      (err) => hasCode(err, "KL_QUEUE_INVALID_ARGUMENT"),
    );
    assert.equal(queue.length, 0);
  });
});

/**
 * One consumer takes a key, works on it for `workMs(key)`, and marks it done, `rounds` times;
 * before each take a new normal key arrives, so normal work never runs out. Returns the keys in
 * the order they were handed out.
 */
async function underSteadyLoad(
  clock: FakeClock,
  queue: WorkQueue,
  rounds: number,
  workMs: (key: string) => number,
) {
  const items = [];
  for (let i = 0; i < rounds; i++) {
    queue.add(`normal-${i}`, "watch:Pod");
    const item = await queue.get();
    assert.ok(item);
    items.push(item);
    clock.advance(workMs(item.key));
    queue.done(item.key);
  }
  return items;
}

const isLow = (key: string) => key.startsWith("low-");

describe("WorkQueue: fair shares of the consumers' time", () => {
  it("serves a waiting low key at once under a steady stream of normal keys, long before the bound", async () => {
    const { clock, queue } = setup();
    queue.add("normal-backlog", "watch:Pod");
    queue.add("low-0", "resync", low);
    const items = await underSteadyLoad(clock, queue, 10, () => 30);
    const index = items.findIndex((i) => i.key === "low-0");
    assert.equal(index, 1, `low-0 goes out right after the first normal key (at ${index})`);
    assert.equal(items[index]!.startedAt - items[index]!.queuedAt, 30);
  });

  it("gives low keys a third of the time when they cost as much as normal ones", async () => {
    const { clock, queue } = setup();
    for (let i = 0; i < 20; i++) queue.add(`low-${i}`, "resync", low);
    const items = await underSteadyLoad(clock, queue, 60, () => 30);
    const lows = items.filter((i) => isLow(i.key));
    assert.equal(lows.length, 20, "every low key went out in 60 takes");
    assert.deepEqual(
      lows.map((i) => i.key),
      Array.from({ length: 20 }, (_, i) => `low-${i}`),
      "low keys in order of readiness",
    );
    const shares = [0, 15, 30, 45].map(
      (from) => items.slice(from, from + 15).filter((i) => isLow(i.key)).length,
    );
    assert.deepEqual(shares, [5, 5, 5, 5], "one take in three is a low key while they wait");
    assert.ok(
      lows.at(-1)!.startedAt - lows.at(-1)!.queuedAt < 60 * 30,
      "the last low key waited 60 keys' work at most",
    );
  });

  it("serves many cheap low keys for each expensive normal one: shares are of time, not of takes", async () => {
    const { clock, queue } = setup();
    for (let i = 0; i < 100; i++) queue.add(`low-${i}`, "resync", low);
    const items = await underSteadyLoad(clock, queue, 130, (key) => (isLow(key) ? 1 : 40));
    const lastLow = items.findLastIndex((i) => isLow(i.key));
    assert.ok(lastLow >= 0 && lastLow < 130, "every low key went out");
    const normalsBefore = items.slice(0, lastLow).filter((i) => !isLow(i.key)).length;
    assert.ok(
      normalsBefore <= 6,
      `20 low keys (20 ms) per normal key (40 ms): ${normalsBefore} normal keys first`,
    );
    assert.ok(normalsBefore >= 4, `normal keys kept two thirds of the time: ${normalsBefore}`);
  });

  it("counts time in flight: a long low key does not let low keys take every consumer", async () => {
    const { clock, queue } = setup();
    for (let i = 0; i < 4; i++) queue.add(`normal-backlog-${i}`, "watch:Pod");
    for (let i = 0; i < 4; i++) queue.add(`low-${i}`, "resync", low);
    const first = await queue.get();
    clock.advance(30);
    queue.done(first!.key);
    const slow = await queue.get();
    assert.equal(slow?.key, "low-0", "low's turn after 30 ms of normal work");
    clock.advance(20);
    const taken = [];
    for (let i = 0; i < 3; i++) {
      const item = await queue.get();
      taken.push(item!.key);
      clock.advance(10);
    }
    assert.deepEqual(
      taken,
      ["normal-backlog-1", "normal-backlog-2", "normal-backlog-3"],
      "low-0 in flight for 20 ms, then more, counts as 40 ms of normal work and more",
    );
  });

  it("banks no share for a priority while it has nothing queued", async () => {
    const { clock, queue } = setup();
    const items = await underSteadyLoad(clock, queue, 50, () => 30);
    assert.equal(items.length, 50);
    for (let i = 0; i < 10; i++) queue.add(`low-${i}`, "resync", low);
    const later = await underSteadyLoad(clock, queue, 10, () => 30);
    assert.deepEqual(
      later.map((i) => (isLow(i.key) ? "low" : "normal")),
      ["low", "normal", "normal", "low", "normal", "normal", "low", "normal", "normal", "low"],
      "low keys queued after 1.5 s of normal work alone get their share from then on, not a burst",
    );
  });
});

describe("WorkQueue: the starvation bound", () => {
  it("hands out a key whose share is negligible within the bound under a steady stream of normal keys", async () => {
    const { clock, queue } = setup(1_000);
    const farBelow = { priority: LOW_PRIORITY * 10 }; // a share of 2^-10 of normal's
    queue.add("normal-backlog", "watch:Pod");
    queue.add("far-0", "resync", farBelow);
    queue.add("far-1", "resync", farBelow);
    const items = await underSteadyLoad(clock, queue, 200, () => 30);
    assert.equal(items[1]?.key, "far-0", "far-0 has the turn its priority gets on arriving");
    const item = items.find((i) => i.key === "far-1");
    assert.ok(item, "far-1 was handed out");
    const waited = item.startedAt - item.queuedAt;
    assert.ok(waited >= 1_000, `it was passed over until the bound (waited ${waited} ms)`);
    assert.ok(waited <= 1_000 + 30, `it waited at most the bound plus one key's work (${waited} ms)`);
  });

  it("without priorities' pressure, hands out low keys at once", async () => {
    const { queue } = setup(1_000);
    queue.add("low", "resync", low);
    assert.equal((await queue.get())?.key, "low");
  });

  it("hands out over-age keys in order of readiness, ahead of keys that became ready after them", async () => {
    const { clock, queue } = setup(1_000);
    queue.add("low-1", "resync", low);
    clock.advance(100);
    queue.add("normal-old", "watch:Pod");
    queue.add("low-2", "resync", low);
    clock.advance(1_000);
    queue.add("normal-new", "watch:Pod");
    assert.deepEqual(await drain(queue), ["low-1", "normal-old", "low-2", "normal-new"]);
  });

  it("counts a raised key's wait from when it became ready", async () => {
    const { clock, queue } = setup(1_000);
    queue.add("a", "resync", { priority: -200 });
    queue.add("b", "resync", low);
    clock.advance(600);
    queue.add("a", "resync", { priority: -50 });
    queue.add("c", "watch:Pod");
    clock.advance(400);
    assert.deepEqual(await drain(queue), ["a", "b", "c"], "a and b are over the bound; a became ready first");
  });

  it("hands out in order of readiness only with a bound of 0", async () => {
    const { queue } = setup(0);
    queue.add("low", "resync", low);
    queue.add("normal", "watch:Pod");
    assert.deepEqual(await drain(queue), ["low", "normal"]);
  });

  it("defaults the bound to 10 s", async () => {
    const { clock, queue } = setup();
    queue.add("low", "resync", low);
    clock.advance(9_999);
    queue.add("normal", "watch:Pod");
    assert.equal((await queue.get())?.key, "normal");
    queue.done("normal");
    queue.add("normal-2", "watch:Pod");
    clock.advance(1);
    assert.equal((await queue.get())?.key, "low");
  });

  it("bounds every low key of a backlog: its share too small, each goes out in readiness order once over the bound", async () => {
    const { clock, queue } = setup(1_000);
    for (let i = 0; i < 20; i++) queue.add(`low-${i}`, "resync", low);
    // At one take in five, the 20th low key would go out after 2 s: the bound comes first.
    const items = await underSteadyLoad(clock, queue, 300, () => 20);
    const lows = items.filter((i) => i.key.startsWith("low-"));
    assert.deepEqual(
      lows.map((i) => i.key),
      Array.from({ length: 20 }, (_, i) => `low-${i}`),
    );
    // The 20 low keys became ready together: the last one waits the bound plus the 19 before it.
    for (const item of lows) assert.ok(item.startedAt - item.queuedAt <= 1_000 + 20 * 20);
  });
});

describe("WorkQueue: depth by priority", () => {
  function recordingDepths() {
    const depths: [number, number][] = [];
    const { metrics } = recordingMetrics();
    return { depths, metrics: { ...metrics, depth: (keys: number, p: number) => depths.push([keys, p]) } };
  }

  it("reports the depth of each priority, and moves a raised key between two", async () => {
    const { depths, metrics } = recordingDepths();
    const { queue } = setup(undefined, metrics);
    queue.add("a", "resync", low);
    queue.add("b", "resync", low);
    queue.add("c", "watch:Pod");
    queue.add("b", "watch:Pod");
    queue.add("c", "resync", low);
    assert.deepEqual(depths.splice(0), [
      [1, LOW_PRIORITY],
      [2, LOW_PRIORITY],
      [1, NORMAL_PRIORITY],
      [1, LOW_PRIORITY],
      [2, NORMAL_PRIORITY],
    ]);
    await queue.get();
    assert.deepEqual(depths.splice(0), [[1, NORMAL_PRIORITY]]);
    queue.shutDown();
    assert.deepEqual(depths.splice(0).sort(), [
      [0, LOW_PRIORITY],
      [0, NORMAL_PRIORITY],
    ]);
  });
});
