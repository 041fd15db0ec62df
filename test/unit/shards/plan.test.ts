import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { planShards, type ShardLeaseState } from "../../../src/shards/index.ts";

/** `count` shards, shard i held by `holders[i]` (undefined: free), none expired unless listed. */
function shards(
  count: number,
  holders: Record<number, string> = {},
  expired: number[] = [],
): ShardLeaseState[] {
  return Array.from({ length: count }, (_, index) => ({
    index,
    holder: holders[index],
    expired: expired.includes(index),
  }));
}

describe("planShards", () => {
  it("gives every replica its fair share, the remainder to the first in identity order, adding up to every shard", () => {
    const members = ["c", "a", "b"];
    const targets = members.map((m) => planShards(m, members, shards(32)).target);
    assert.deepEqual(targets, [10, 11, 11]);
    assert.equal(
      targets.reduce((a, b) => a + b),
      32,
    );
  });

  it("counts the replica itself before its membership is seen", () => {
    assert.equal(planShards("new", ["a"], shards(8)).target, 4);
  });

  it("claims free and expired shards up to the target, starting at a rank-dependent offset", () => {
    const a = planShards("a", ["a", "b"], shards(8));
    const b = planShards("b", ["a", "b"], shards(8));
    assert.deepEqual(a.claim, [0, 1, 2, 3]);
    assert.deepEqual(b.claim, [4, 5, 6, 7], "replicas starting together try different shards first");
    const taken = planShards("b", ["a", "b"], shards(8, { 0: "a", 1: "a", 4: "a", 5: "gone" }, [5]));
    assert.deepEqual(taken.claim, [5, 6, 7, 2], "an expired shard is free; held ones are not");
  });

  it("keeps what it holds up to the target and releases the highest-indexed extras", () => {
    const holders = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [i, "a"]));
    const plan = planShards("a", ["a", "b", "c"], shards(8, holders));
    assert.equal(plan.target, 3);
    assert.deepEqual(plan.held, [0, 1, 2, 3, 4, 5, 6, 7]);
    assert.deepEqual(plan.release, [3, 4, 5, 6, 7]);
    assert.deepEqual(plan.claim, []);
  });

  it("does not count a shard of its own whose Lease expired as held", () => {
    const plan = planShards("a", ["a"], shards(2, { 0: "a", 1: "a" }, [1]));
    assert.deepEqual(plan.held, [0]);
    assert.deepEqual(plan.claim, [1]);
  });
});
