import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { microTime } from "../../../src/election/index.ts";
import { Harness, T0 } from "./support.ts";

describe("LeaderElector acquiring", () => {
  it("creates the Lease when it is missing, with transitions 0, and starts leading", async () => {
    const h = new Harness();
    const a = h.start("a");
    await h.advance(0);
    assert.equal(a.elector.isLeader(), true);
    assert.deepEqual(h.store.lease()?.spec, {
      holderIdentity: "a",
      leaseDurationSeconds: 15,
      acquireTime: microTime(T0),
      renewTime: microTime(T0),
      leaseTransitions: 0,
    });
    assert.deepEqual(a.events, ["new:a", "started"]);
    assert.deepEqual(a.metrics, ["status=0", "status=1"]);
    assert.equal(a.terms[0]?.aborted, false);
    await a.stop();
  });

  it("writes the owner references it is given on every write, so that garbage collection follows them", async () => {
    const h = new Harness();
    const pod = { apiVersion: "v1", kind: "Pod", name: "widgets-0", uid: "uid-0" };
    const a = h.start("a", { ownerReferences: [pod] });
    await h.advance(0);
    assert.deepEqual(h.store.lease()?.metadata.ownerReferences, [pod], "on create");
    h.store.put({ ...h.store.lease()?.spec }); // someone drops the owners
    await h.advanceTo(4_000);
    assert.deepEqual(h.store.lease()?.metadata.ownerReferences, [pod], "back on the next renewal");
    await a.stop();
    assert.equal(h.store.lease()?.spec?.holderIdentity, undefined, "released");
    assert.deepEqual(h.store.lease()?.metadata.ownerReferences, [pod], "and on the release");
  });

  it("takes a released Lease at once and counts the transition", async () => {
    const h = new Harness();
    h.store.put({ leaseDurationSeconds: 1, renewTime: microTime(T0), leaseTransitions: 3 });
    const a = h.start("a");
    await h.advance(0);
    assert.equal(a.elector.isLeader(), true);
    assert.equal(h.store.lease()?.spec?.holderIdentity, "a");
    assert.equal(h.store.lease()?.spec?.leaseTransitions, 4);
    assert.equal(h.store.lease()?.spec?.leaseDurationSeconds, 15);
    await a.stop();
  });

  it("never takes a Lease its holder keeps renewing, and reports that holder once", async () => {
    const h = new Harness();
    h.store.put({
      holderIdentity: "b",
      leaseDurationSeconds: 15,
      renewTime: microTime(T0),
      leaseTransitions: 0,
    });
    const a = h.start("a");
    for (let t = 2_000; t <= 60_000; t += 2_000) {
      await h.advanceTo(t - 500);
      h.store.renew(h.clock.now());
      assert.equal(a.elector.isLeader(), false, `at ${t} ms`);
    }
    assert.deepEqual(a.events, ["new:b"]);
    assert.equal(a.elector.leader, "b");
    assert.ok(!h.store.calls.includes("update"), "a follower of a live lease never writes");
    assert.equal(h.store.lease()?.spec?.holderIdentity, "b");
    await a.stop();
  });

  for (const [skew, renewTime] of [
    ["an hour in the past", T0 - 3_600_000],
    ["an hour in the future", T0 + 3_600_000],
  ] as const) {
    it(`takes over after leaseDuration of no observed change, not before, when renewTime is ${skew}`, async () => {
      const h = new Harness();
      h.store.put({ holderIdentity: "b", leaseDurationSeconds: 15, renewTime: microTime(renewTime) });
      const a = h.start("a");
      await h.advanceTo(14_900);
      assert.equal(a.elector.isLeader(), false, "the record was first seen at 0 ms: valid until 15 s");
      const tookOver = await h.until(() => a.elector.isLeader(), 5_000);
      assert.ok(tookOver >= 15_000 && tookOver <= 17_000, `took over at ${tookOver} ms`);
      const spec = h.store.lease()?.spec;
      assert.equal(spec?.holderIdentity, "a");
      assert.equal(spec?.leaseTransitions, 1);
      assert.equal(spec?.acquireTime, microTime(T0 + tookOver));
      assert.deepEqual(a.events, ["new:b", "new:a", "started"]);
      assert.deepEqual(a.metrics, ["status=0", "transition", "status=1"]);
      await a.stop();
    });
  }

  it("restarts the wait whenever the holder's record changes", async () => {
    const h = new Harness();
    h.store.put({ holderIdentity: "b", leaseDurationSeconds: 15, renewTime: microTime(T0) });
    const a = h.start("a");
    await h.advanceTo(9_000);
    h.store.renew(h.clock.now()); // b's last renew; a sees it at its 10 s poll
    await h.advanceTo(24_900);
    assert.equal(a.elector.isLeader(), false, "valid until 15 s after a saw the change at 10 s");
    const tookOver = await h.until(() => a.elector.isLeader(), 5_000);
    assert.ok(tookOver >= 25_000 && tookOver <= 27_000, `took over at ${tookOver} ms`);
    await a.stop();
  });

  for (const [what, seed] of [
    ["a missing Lease (both create)", () => {}],
    [
      "a released Lease (both update)",
      (h: Harness) => h.store.put({ leaseDurationSeconds: 1, leaseTransitions: 2 }),
    ],
  ] as const) {
    it(`of two candidates racing for ${what}, the one that gets a 409 stays a follower`, async () => {
      const h = new Harness();
      seed(h);
      const a = h.start("a");
      const b = h.start("b");
      await h.advance(0);
      assert.equal(h.store.conflicts, 1, "exactly one write lost the race");
      const [winner, loser] = a.elector.isLeader() ? [a, b] : [b, a];
      assert.equal(winner.elector.isLeader(), true);
      assert.equal(loser.elector.isLeader(), false);
      assert.deepEqual(loser.errors, [], "a lost race is not an error");
      assert.deepEqual(loser.events, []);
      await h.advance(30_000);
      assert.equal(loser.elector.isLeader(), false, "the winner keeps renewing");
      assert.deepEqual(loser.events, [`new:${winner.elector.identity}`]);
      assert.equal(winner.events.filter((e) => e === "started").length, 1);
      await Promise.all([a.stop(), b.stop()]);
    });
  }

  it("retries API errors every retryPeriod, never faster, and acquires once the API recovers", async () => {
    const h = new Harness();
    h.store.failing = true;
    const a = h.start("a");
    await h.advanceTo(20_000);
    assert.equal(h.store.calls.length, 11, "one get at 0, 2, 4, ..., 20 s");
    assert.deepEqual(new Set(a.events), new Set(["error:acquire"]));
    h.store.failing = false;
    const acquired = await h.until(() => a.elector.isLeader(), 3_000);
    assert.equal(acquired, 22_000);
    await a.stop();
  });

  it("rejects a second run while the first is going", async () => {
    const h = new Harness();
    const a = h.start("a");
    await assert.rejects(a.elector.run(new AbortController().signal), {
      code: "KL_ELECTION_ALREADY_RUNNING",
    });
    await a.stop();
  });
});
