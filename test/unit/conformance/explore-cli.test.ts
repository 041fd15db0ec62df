import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { exploreOptions, parseBudget } from "../../../src/cli/verify-explore.ts";
import { ConformanceError } from "../../../src/testing/conformance/index.ts";

describe("verify --explore flags", () => {
  it("reads a budget in seconds, minutes or hours", () => {
    assert.equal(parseBudget("90s"), 90_000);
    assert.equal(parseBudget("10m"), 600_000);
    assert.equal(parseBudget("1.5h"), 5_400_000);
    assert.equal(parseBudget(undefined), undefined);
    assert.throws(
      () => parseBudget("10"),
      (err: unknown) => err instanceof ConformanceError && /like 90s, 10m/.test(err.message),
    );
  });

  it("reads the replay flags: --seed, --trial and --steps (none for the empty sequence)", () => {
    assert.deepEqual(exploreOptions({ seed: "2", trial: "5", steps: "0,3" }), {
      trials: undefined,
      seed: 2,
      budgetMs: undefined,
      trial: 5,
      steps: [0, 3],
    });
    assert.deepEqual(exploreOptions({ seed: "2", trial: "5", steps: "none" }).steps, []);
  });

  it("refuses a malformed number and --steps without --trial, naming the fix", () => {
    assert.throws(() => exploreOptions({ trials: "many" }), /--trials must be a whole number/);
    assert.throws(() => exploreOptions({ steps: "1" }), /--steps needs --trial/);
  });
});
