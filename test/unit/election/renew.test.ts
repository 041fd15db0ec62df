import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LeadershipLostError, microTime } from "../../../src/election/index.ts";
import { Harness, T0 } from "./support.ts";

/** A harness whose candidate `a` leads from T0. */
async function leading() {
  const h = new Harness();
  const a = h.start("a");
  await h.advance(0);
  assert.equal(a.elector.isLeader(), true);
  return { h, a };
}

/** `events` without the entries in `drop`. */
function without(events: string[], ...drop: string[]): string[] {
  return events.filter((e) => !drop.includes(e));
}

describe("LeaderElector leading", () => {
  it("renews every retryPeriod without reading, keeping acquireTime and transitions", async () => {
    const { h, a } = await leading();
    await h.advanceTo(60_000);
    assert.equal(a.elector.isLeader(), true);
    assert.deepEqual(a.events, ["new:a", "started"]);
    assert.equal(a.terms[0]?.aborted, false);
    assert.deepEqual(h.store.lease()?.spec, {
      holderIdentity: "a",
      leaseDurationSeconds: 15,
      acquireTime: microTime(T0),
      renewTime: microTime(T0 + 60_000),
      leaseTransitions: 0,
    });
    assert.equal(h.store.calls.filter((c) => c === "update").length, 30, "one renew at 2, 4, ..., 60 s");
    assert.equal(
      h.store.calls.filter((c) => c === "get").length,
      1,
      "renews write the Lease they last wrote",
    );
    await a.stop();
  });

  it("survives failed renews shorter than renewDeadline", async () => {
    const { h, a } = await leading();
    await h.advanceTo(1_000);
    h.store.failing = true;
    await h.advanceTo(7_000); // renews at 2, 4 and 6 s fail; the deadline is 10 s
    h.store.failing = false;
    await h.advanceTo(30_000);
    assert.equal(a.elector.isLeader(), true);
    assert.deepEqual(a.events, ["new:a", "started", "error:renew", "error:renew", "error:renew"]);
    await a.stop();
  });

  it("stops leading exactly renewDeadline after the last successful renew, aborting the lead signal", async () => {
    const { h, a } = await leading();
    await h.advanceTo(5_000);
    h.store.failing = true; // the renew at 4 s was the last to succeed
    await h.advanceTo(13_900);
    assert.equal(a.elector.isLeader(), true, "still within the deadline");
    await h.advanceTo(14_000);
    assert.equal(a.elector.isLeader(), false);
    const signal = a.terms[0];
    assert.equal(signal?.aborted, true);
    assert.ok(signal?.reason instanceof LeadershipLostError);
    assert.equal(signal?.reason.code, "KL_LEADERSHIP_LOST");
    assert.deepEqual(without(a.events, "error:renew"), ["new:a", "started", "stopped", "error:acquire"]);
    assert.deepEqual(a.metrics, ["status=0", "status=1", "status=0"]);

    h.store.failing = false; // nobody else took the Lease: a holds it still, and leads again
    await h.until(() => a.elector.isLeader(), 3_000);
    assert.deepEqual(
      a.events.filter((e) => !e.startsWith("error")),
      ["new:a", "started", "stopped", "started"],
    );
    assert.equal(a.terms[1]?.aborted, false);
    assert.equal(h.store.lease()?.spec?.leaseTransitions, 0);
    await a.stop();
  });

  it("stops leading at renewDeadline even while a renew request hangs", async () => {
    const { h, a } = await leading();
    await h.advanceTo(1_000);
    h.store.hanging = true;
    await h.advanceTo(9_900);
    assert.equal(a.elector.isLeader(), true);
    assert.deepEqual(h.store.calls, ["get", "create", "update"], "the renew at 2 s is still hanging");
    await h.advanceTo(10_000);
    assert.equal(a.elector.isLeader(), false);
    assert.equal(h.store.abortedCalls, 1, "the hung request was aborted");
    assert.deepEqual(without(a.events, "error:acquire"), ["new:a", "started", "stopped"]);
    h.store.hanging = false; // lets the release on the way out answer
    await a.stop();
  });

  it("stops leading at once when it sees another holder, and counts the transition", async () => {
    const { h, a } = await leading();
    await h.advanceTo(3_000);
    h.store.put({ holderIdentity: "b", leaseDurationSeconds: 15, renewTime: microTime(h.clock.now()) });
    await h.advanceTo(4_000);
    assert.equal(a.elector.isLeader(), false);
    assert.match(String(a.terms[0]?.reason?.message), /held by b/);
    assert.deepEqual(a.events, ["new:a", "started", "new:b", "stopped"]);
    assert.deepEqual(a.metrics, ["status=0", "status=1", "transition", "status=0"]);
    assert.equal(h.store.lease()?.spec?.holderIdentity, "b", "the loser does not write");
    await a.stop();
  });

  it("reports an exception thrown by a callback and keeps leading", async () => {
    const h = new Harness();
    const boom = new Error("boom");
    const a = h.start("a", {
      onStartedLeading: () => {
        throw boom;
      },
    });
    await h.advance(10_000);
    assert.equal(a.elector.isLeader(), true);
    assert.deepEqual(a.errors, [boom]);
    assert.deepEqual(a.events, ["new:a", "error:callback"]);
    await a.stop();
  });
});
