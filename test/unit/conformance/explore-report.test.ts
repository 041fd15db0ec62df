/**
 * The one-line description of a trial names its perturbation, whichever of the three classes it
 * is, with the step it follows: what a reader of a report, and of a replay, recognises it by.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  describePerturbation,
  describePlan,
  keepSteps,
  type Step,
  type TrialPlan,
} from "../../../src/testing/conformance/explore/index.ts";

const set = (value: string): Step => ({ op: "set", path: ["spec", "message"], value, valid: true, why: "" });
const steps: Step[] = [set("a"), set("b"), { op: "recreate" }, set("c")];
const plan = (perturbation: TrialPlan["perturbation"]): TrialPlan => ({
  seed: 13,
  trial: 0,
  indices: [0, 1, 2, 3],
  steps,
  perturbation,
});

describe("describePerturbation", () => {
  it("names a kill by its write and step", () => {
    assert.equal(
      describePerturbation({ kind: "kill", at: 0, k: 3 }),
      "kill after write 3 of the reconcile of the creation",
    );
  });

  it("names a stale view by its resource and the step it lags behind", () => {
    assert.equal(
      describePerturbation({ kind: "stale", at: 2, resource: "configmaps" }),
      "restart on a stale view of configmaps from before step 2",
    );
    assert.equal(
      describePerturbation({ kind: "stale", at: 0, resource: "parcels" }),
      "restart on a stale view of parcels from before the creation",
    );
  });

  it("names an unobserved pair by its two steps", () => {
    assert.equal(describePerturbation({ kind: "unobserved", at: 1 }), "events of steps 1–2 unobserved");
  });
});

describe("describePlan", () => {
  it("ends the steps with the perturbation, renumbered with its steps once shrunk", () => {
    const stale = plan({ kind: "stale", at: 4, resource: "configmaps" });
    assert.match(describePlan(stale), /; restart on a stale view of configmaps from before step 4$/);
    assert.equal(
      describePlan(keepSteps(stale, [3])),
      '1. spec.message = "c" (); restart on a stale view of configmaps from before step 1',
    );
    const unseen = plan({ kind: "unobserved", at: 1 });
    assert.match(describePlan(keepSteps(unseen, [0, 1])), /; events of steps 1–2 unobserved$/);
    assert.doesNotMatch(describePlan(keepSteps(unseen, [1, 3])), /unobserved/);
  });
});
