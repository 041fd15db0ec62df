/**
 * A leader told to stop (its run signal aborted) keeps its Lease renewed while its work drains,
 * and releases it only once the work ended; if renewals fail meanwhile, leadership is lost a
 * renew deadline after the last successful renewal, however long the drain still had to run.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { untilAborted } from "../../../src/clock/index.ts";
import { LeadershipLostError, microTime } from "../../../src/election/index.ts";
import { Harness, T0 } from "./support.ts";

/** Work that, once told to stop, drains for `drainMs` unless leadership is lost first; records when it ended. */
function draining(h: Harness, drainMs: number, ended: { at?: number }) {
  return async (signal: AbortSignal, lost?: AbortSignal) => {
    await untilAborted(signal);
    const lostOrDrained = [h.clock.sleep(drainMs)];
    if (lost) lostOrDrained.push(untilAborted(lost).then(() => {}));
    await Promise.race(lostOrDrained);
    ended.at = h.clock.monotonicMs();
  };
}

describe("LeaderElector told to stop", () => {
  it("keeps renewing the Lease while its work drains, longer than a lease duration, and releases it after", async () => {
    const h = new Harness();
    const ended: { at?: number } = {};
    const a = h.start("a", { onStartedLeading: draining(h, 20_000, ended) });
    await h.advanceTo(1_000);
    const b = h.start("b");
    await h.advanceTo(3_000);
    const stopped = a.stop();
    await h.advanceTo(22_900);
    assert.equal(ended.at, undefined, "the work still drains");
    assert.equal(b.elector.isLeader(), false, "no successor while a's work drains");
    assert.equal(a.elector.isLeader(), true, "a holds the Lease while its work drains");
    assert.equal(h.store.lease()?.spec?.renewTime, microTime(T0 + 22_000), "renewed every retry period");

    const tookOver = await h.until(() => b.elector.isLeader(), 5_000);
    await stopped;
    assert.equal(ended.at, 23_000);
    assert.ok(tookOver > 23_000 && tookOver <= 23_000 + 2_200, `b took over at ${tookOver} ms`);
    assert.equal(h.store.lease()?.spec?.holderIdentity, "b");
    await b.stop();
  });

  it("tells the work to stop without aborting the lost signal, which a clean end never aborts", async () => {
    const h = new Harness();
    const ended: { at?: number } = {};
    const work = draining(h, 5_000, ended);
    const a = h.start("a", {
      onStartedLeading: (signal, lost) => {
        a.terms.push(signal);
        a.losses.push(lost);
        return work(signal, lost);
      },
    });
    await h.advanceTo(1_000);
    const stopped = a.stop();
    await h.advanceTo(2_000);
    assert.equal(a.terms[0]?.aborted, true);
    assert.match(String(a.terms[0]?.reason), /test shutdown/);
    assert.equal(a.losses[0]?.aborted, false);
    await h.advanceTo(6_000);
    await stopped;
    assert.equal(ended.at, 6_000);
    assert.equal(a.losses[0]?.aborted, false, "the work ended and the Lease was released: nothing was lost");
    assert.equal(h.store.lease()?.spec?.holderIdentity, undefined, "released after the drain");
    assert.deepEqual(a.metrics, ["status=0", "status=1", "status=0"]);
  });

  it("loses leadership renewDeadline after the last successful renewal when renewals fail during the drain, not after the stop", async () => {
    const h = new Harness();
    const ended: { at?: number } = {};
    let stopSignal: AbortSignal | undefined;
    let lostSignal: AbortSignal | undefined;
    const work = draining(h, 60_000, ended);
    const a = h.start("a", {
      onStartedLeading: (signal, lost) => {
        stopSignal = signal;
        lostSignal = lost;
        return work(signal, lost);
      },
    });
    await h.advanceTo(4_500);
    h.store.failing = true; // the renewal at 4 s was the last to succeed
    await h.advanceTo(9_000);
    const stopped = a.stop(); // given up after 4.5 s of failed renewals
    await h.advanceTo(13_900);
    assert.equal(stopSignal?.aborted, true, "told to stop at 9 s");
    assert.match(String(stopSignal?.reason), /test shutdown/);
    assert.equal(lostSignal?.aborted, false, "not lost within the deadline");
    assert.equal(a.elector.isLeader(), true);
    await h.advanceTo(14_000);
    assert.equal(lostSignal?.aborted, true, "lost 10 s after the renewal at 4 s");
    assert.ok(lostSignal?.reason instanceof LeadershipLostError);
    assert.equal(a.elector.isLeader(), false);
    assert.equal(ended.at, 14_000, "the work stopped at the loss, not 60 s into its drain");
    h.store.failing = false;
    await stopped;
  });

  it("aborts both signals when leadership is lost while working", async () => {
    const h = new Harness();
    const a = h.start("a");
    await h.advanceTo(3_000);
    h.store.put({ holderIdentity: "b", leaseDurationSeconds: 15, renewTime: microTime(h.clock.now()) });
    await h.advanceTo(4_000);
    assert.ok(a.terms[0]?.reason instanceof LeadershipLostError);
    assert.equal(a.losses[0]?.aborted, true);
    assert.equal(a.losses[0]?.reason, a.terms[0]?.reason);
    await a.stop();
  });
});
