import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { shrink } from "../../../src/testing/conformance/explore/index.ts";

/** Fails when every item of `culprits` is there (in any order). */
const failsWith =
  (...culprits: number[]) =>
  async (items: number[]) =>
    culprits.every((c) => items.includes(c));

describe("shrink", () => {
  it("finds the one step that matters among eight", async () => {
    const found = await shrink([0, 1, 2, 3, 4, 5, 6, 7], failsWith(5), 50);
    assert.deepEqual(found.items, [5]);
    assert.equal(found.minimal, true);
  });

  it("keeps two steps that fail only together, in their order", async () => {
    const found = await shrink([0, 1, 2, 3, 4, 5, 6, 7], failsWith(6, 1), 50);
    assert.deepEqual(found.items, [1, 6]);
    assert.equal(found.minimal, true);
  });

  it("returns the empty sequence when it fails too (the failure needs no step)", async () => {
    const found = await shrink([0, 1, 2], async () => true, 50);
    assert.deepEqual(found, { items: [], runs: 1, minimal: true });
  });

  it("stops within its budget of runs, with the smallest failing sequence found so far", async () => {
    let runs = 0;
    const found = await shrink(
      [0, 1, 2, 3, 4, 5, 6, 7],
      async (items) => {
        runs++;
        return items.includes(2) && items.includes(5);
      },
      4,
    );
    // The empty sequence, each half (neither fails), then the first quarter dropped (still fails).
    assert.equal(runs, 4);
    assert.equal(found.runs, 4);
    assert.equal(found.minimal, false);
    assert.ok(found.items.includes(2) && found.items.includes(5));
    assert.deepEqual(found.items, [2, 3, 4, 5, 6, 7]);
  });
});
