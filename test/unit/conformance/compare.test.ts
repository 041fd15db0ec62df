/** Comparing statuses: the members left out of a comparison, at any depth. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { withoutMembers, withoutTransitionTimes } from "../../../src/testing/conformance/internal/compare.ts";

describe("withoutMembers", () => {
  test("leaves out the named members at any depth, in arrays too, and keeps the rest", () => {
    const status = {
      observedGeneration: 3,
      phase: "Ready",
      conditions: [{ type: "Ready", lastTransitionTime: "t", observedGeneration: 3, status: "True" }],
    };
    assert.deepEqual(withoutMembers(status, ["lastTransitionTime", "observedGeneration"]), {
      phase: "Ready",
      conditions: [{ type: "Ready", status: "True" }],
    });
    assert.deepEqual(withoutTransitionTimes(status), {
      observedGeneration: 3,
      phase: "Ready",
      conditions: [{ type: "Ready", observedGeneration: 3, status: "True" }],
    });
  });

  test("gives back what is not an object as it is", () => {
    assert.deepEqual(
      [undefined, null, 1, "s"].map((v) => withoutMembers(v, ["a"])),
      [undefined, null, 1, "s"],
    );
  });
});
