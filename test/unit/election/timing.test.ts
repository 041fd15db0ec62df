import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { LeaseClient } from "../../../src/election/index.ts";
import { microTime } from "../../../src/election/index.ts";
import { Harness, T0 } from "./support.ts";

const anHour = 3_600_000;

describe("LeaderElector timing", () => {
  it("does not let a follower take over early when its wall clock jumps forward", async () => {
    const h = new Harness();
    h.store.put({ holderIdentity: "b", leaseDurationSeconds: 15, renewTime: microTime(T0) });
    const a = h.start("a");
    await h.advanceTo(5_000);
    h.clock.jumpWallClock(anHour);
    await h.advanceTo(14_900);
    assert.equal(
      a.elector.isLeader(),
      false,
      "15 s of monotonic time have not passed since a saw b's record",
    );
    const tookOver = await h.until(() => a.elector.isLeader(), 5_000);
    assert.ok(tookOver >= 15_000 && tookOver <= 17_000, `took over at ${tookOver} ms`);
    assert.equal(
      h.store.lease()?.spec?.acquireTime,
      microTime(T0 + anHour + tookOver),
      "the Lease says wall time",
    );
    await a.stop();
  });

  it("keeps leading when its wall clock jumps while a renew is in flight", async () => {
    const h = new Harness();
    let jumps = 0;
    const jumpingClient: LeaseClient = {
      get: (type, name, opts) => h.store.get(type, name, opts),
      create: (type, obj, opts) => h.store.create(type, obj, opts),
      update: async (type, obj, opts) => {
        if (jumps++ === 3) h.clock.jumpWallClock(anHour);
        return h.store.update(type, obj, opts);
      },
    };
    const a = h.start("a", { client: jumpingClient });
    await h.advanceTo(30_000);
    assert.ok(jumps > 3);
    assert.equal(a.elector.isLeader(), true);
    assert.deepEqual(a.events, ["new:a", "started"]);
    await a.stop();
  });

  it("waits retryPeriod plus up to 1.2 × retryPeriod of jitter between tries to acquire, as client-go", async () => {
    const h = new Harness();
    h.store.failing = true;
    const a = h.start("a", { random: () => 0.5 });
    await h.advanceTo(10_000);
    assert.equal(h.store.calls.length, 4, "tries at 0, 3.2, 6.4 and 9.6 s");
    h.store.failing = false;
    const acquired = await h.until(() => a.elector.isLeader(), 4_000);
    assert.equal(acquired, 12_800);
    await a.stop();
  });

  it("renews every retryPeriod without jitter once leading", async () => {
    const h = new Harness();
    const a = h.start("a", { random: () => 0.99 });
    await h.advanceTo(20_000);
    assert.equal(h.store.calls.filter((c) => c === "update").length, 10, "renews at 2, 4, ..., 20 s");
    await a.stop();
  });
});
