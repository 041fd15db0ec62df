import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { microTime } from "../../../src/election/index.ts";
import { flush, Harness, T0 } from "./support.ts";

describe("LeaderElector shutdown", () => {
  it("releases the Lease so that a follower takes over within retryPeriod", async () => {
    const h = new Harness();
    const a = h.start("a");
    await h.advanceTo(1_000);
    const b = h.start("b");
    await h.advanceTo(5_500);
    await a.stop();
    assert.equal(a.elector.isLeader(), false);
    assert.deepEqual(a.events, ["new:a", "started", "stopped"]);
    assert.equal(a.terms[0]?.aborted, true);
    assert.deepEqual(h.store.lease()?.spec, {
      leaseDurationSeconds: 1,
      acquireTime: microTime(T0 + 5_500),
      renewTime: microTime(T0 + 5_500),
      leaseTransitions: 0,
    });
    const tookOver = await h.until(() => b.elector.isLeader(), 2_000);
    assert.ok(tookOver - 5_500 <= 2_000, `handover took ${tookOver - 5_500} ms`);
    assert.equal(h.store.lease()?.spec?.holderIdentity, "b");
    assert.equal(h.store.lease()?.spec?.leaseTransitions, 1);
    assert.deepEqual(b.events, ["new:a", "new:b", "started"]);
    await b.stop();
  });

  it("waits for the leading work to finish before releasing, leading until then", async () => {
    const h = new Harness();
    let finishWork = () => {};
    const a = h.start("a", {
      onStartedLeading: (signal) =>
        new Promise<void>((resolve) => {
          signal.addEventListener("abort", () => {
            finishWork = resolve;
          });
        }),
    });
    await h.advance(3_000);
    const stopped = a.stop();
    await flush();
    assert.equal(a.elector.isLeader(), true, "still leading while the work winds down");
    assert.equal(h.store.lease()?.spec?.holderIdentity, "a");
    finishWork();
    await stopped;
    assert.equal(a.elector.isLeader(), false);
    assert.equal(h.store.lease()?.spec?.holderIdentity, undefined);
  });

  it("keeps the Lease on shutdown when releaseOnCancel is false", async () => {
    const h = new Harness();
    const a = h.start("a", { releaseOnCancel: false });
    await h.advance(3_000);
    await a.stop();
    assert.deepEqual(a.events, ["new:a", "started", "stopped"]);
    assert.equal(h.store.lease()?.spec?.holderIdentity, "a");
    assert.equal(h.store.lease()?.spec?.leaseDurationSeconds, 15);
  });

  it("leaves a Lease held by another candidate alone", async () => {
    const h = new Harness();
    h.store.put({ holderIdentity: "b", leaseDurationSeconds: 15, renewTime: microTime(T0) });
    const a = h.start("a");
    await h.advance(3_000);
    await a.stop();
    assert.deepEqual(a.events, ["new:b"]);
    assert.equal(h.store.lease()?.spec?.holderIdentity, "b");
    assert.equal(h.store.calls.filter((c) => c === "update").length, 0);
  });

  it("counts leaseTransitions across successive holders", async () => {
    const h = new Harness();
    const holders: string[] = [];
    for (const id of ["a", "b", "c", "a"]) {
      const candidate = h.start(id);
      await h.until(() => candidate.elector.isLeader(), 2_000);
      holders.push(`${h.store.lease()?.spec?.holderIdentity}:${h.store.lease()?.spec?.leaseTransitions}`);
      await candidate.stop();
    }
    assert.deepEqual(holders, ["a:0", "b:1", "c:2", "a:3"]);
  });
});
