/** The last reconciles a controller remembers for the live page: a bounded ring, newest first. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Action } from "../../../src/controller/index.ts";
import { RECENT_RECONCILES, Ring } from "../../../src/controller/recent.ts";
import { eventually } from "../../../src/testing/index.ts";
import { harness } from "./support.ts";

describe("Ring", () => {
  it("keeps what was pushed, newest first, until full", () => {
    const ring = new Ring<number>(3);
    assert.deepEqual(ring.newestFirst(), []);
    ring.push(1);
    ring.push(2);
    assert.deepEqual(ring.newestFirst(), [2, 1]);
  });

  it("overwrites the oldest once full, never growing past its capacity", () => {
    const ring = new Ring<number>(3);
    for (let i = 1; i <= 10; i++) ring.push(i);
    assert.deepEqual(ring.newestFirst(), [10, 9, 8]);
    ring.push(11);
    assert.deepEqual(ring.newestFirst(), [11, 10, 9]);
  });
});

describe("Controller: recent reconciles", () => {
  it("records each reconcile's item (key, triggers, priority, times), duration, result and error", async (t) => {
    const h = harness(t, async ({ ctx }) => {
      h.clock.advance(ctx.request.name === "slow" ? 250 : 5);
      if (ctx.request.name === "bad") throw new Error("boom");
      return ctx.request.name === "later" ? Action.requeueAfter(60_000) : undefined;
    });
    h.controller.enqueue("ns/slow", "owned:ConfigMap:update");
    h.controller.enqueue("ns/slow", "owned:ConfigMap:update");
    h.controller.enqueue("ns/bad", "watch:Secret:create");
    h.controller.enqueue("ns/later", "resync", -100);
    void h.run();
    const first = (key: string) => h.controller.recentReconciles().findLast((r) => r.item.key === key);
    await eventually(() => first("ns/later") && first("ns/bad"), {
      intervalMs: 1,
      what: "the three keys recorded",
    });
    const [slow, bad, later] = [first("ns/slow"), first("ns/bad"), first("ns/later")];
    assert.equal(slow?.item.key, "ns/slow");
    assert.deepEqual(slow?.item.reasons, [{ reason: "owned:ConfigMap:update", count: 2 }]);
    assert.equal(slow?.seconds, 0.25);
    assert.equal(slow?.result, "success");
    assert.equal(bad?.result, "error");
    assert.equal((bad?.error as Error | undefined)?.message, "boom");
    assert.equal(later?.result, "requeue_after");
    assert.equal(later?.item.priority, -100);
    assert.equal(
      later?.item.startedAt,
      10_000 + 250,
      "its priority's share of the time ns/slow took, before ns/bad",
    );
    assert.deepEqual(
      h.controller
        .recentReconciles()
        .map((r) => r.item.key)
        .slice(-3),
      ["ns/bad", "ns/later", "ns/slow"],
      "newest first",
    );
  });

  it(`keeps only the last ${RECENT_RECONCILES}`, async (t) => {
    const h = harness(t);
    void h.run();
    const count = RECENT_RECONCILES + 7;
    for (let i = 0; i < count; i++) h.controller.enqueue(`ns/k${i}`, "manual");
    await eventually(() => h.reconciles.length === count, { intervalMs: 1, what: "every key reconciled" });
    await eventually(() => h.controller.recentReconciles()[0]?.item.key === `ns/k${count - 1}`, {
      intervalMs: 1,
      what: "the last one recorded",
    });
    const recent = h.controller.recentReconciles();
    assert.equal(recent.length, RECENT_RECONCILES);
    assert.equal(recent.at(-1)?.item.key, "ns/k7");
  });
});
