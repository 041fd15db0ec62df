import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JSONSchemaProps } from "../../../src/schema/index.ts";
import {
  applyChange,
  candidateSteps,
  describeStep,
  keepSteps,
  planTrial,
  type Step,
  type TrialPlan,
  unobservedPairs,
} from "../../../src/testing/conformance/explore/index.ts";

const schema: JSONSchemaProps = {
  type: "object",
  required: ["size", "replicas"],
  properties: {
    size: { type: "string", enum: ["small", "large"] },
    replicas: { type: "integer", minimum: 1, maximum: 5 },
    paused: { type: "boolean" },
    name: { type: "string", pattern: "^[a-z][a-z0-9-]*$", maxLength: 8 },
    tags: { type: "array", items: { type: "string", minLength: 1 }, maxItems: 2 },
  },
};
const spec = { size: "small", replicas: 2, paused: false, name: "web", tags: ["a"] };

const sets = (steps: Step[], field: string) =>
  steps
    .filter((s): s is Extract<Step, { op: "set" }> => s.op === "set" && s.path.join(".") === `spec.${field}`)
    .map((s) => [s.value, s.valid, s.why]);

describe("candidateSteps", () => {
  const steps = candidateSteps(schema, spec);

  it("tries every enum member and one value outside the enum", () => {
    assert.deepEqual(sets(steps, "size"), [
      ["small", true, "enum member"],
      ["large", true, "enum member"],
      ["not-a-member", false, "not an enum member"],
    ]);
  });

  it("tries integer boundaries: 0, minimum, minimum-1, maximum, maximum+1, marking those outside invalid", () => {
    assert.deepEqual(sets(steps, "replicas"), [
      [0, false, "zero"],
      [1, true, "minimum"],
      [5, true, "maximum"],
      [6, false, "maximum+1"],
    ]);
  });

  it("flips a boolean and removes an optional field, never a required one", () => {
    assert.deepEqual(sets(steps, "paused"), [[true, true, "flipped"]]);
    const removed = steps.filter((s) => s.op === "remove").map((s) => s.op === "remove" && s.path.join("."));
    assert.deepEqual(removed, ["spec.name", "spec.paused", "spec.tags"]);
  });

  it("tries a string valid per its pattern and length, one not matching the pattern, and the length boundary", () => {
    const names = sets(steps, "name");
    assert.deepEqual(names[0], ["explored", true, "a valid string"]);
    assert.deepEqual(names[1], ["!nvalid ", false, "not matching ^[a-z][a-z0-9-]*$"]);
    assert.deepEqual(names.slice(2), [
      ["exploredd".slice(0, 8), true, "maxLength"],
      ["explored".padEnd(9, "d"), false, "maxLength+1"],
    ]);
    for (const [value, valid] of names) {
      assert.equal(
        /^[a-z][a-z0-9-]*$/.test(String(value)) && String(value).length <= 8,
        valid,
        String(value),
      );
    }
  });

  it("grows and shrinks a list, and exceeds its maxItems", () => {
    assert.deepEqual(sets(steps, "tags"), [
      [["a", "explored"], true, "grown"],
      [[], true, "shrunk"],
      [["a", "explored", "explored"], false, "maxItems+1"],
    ]);
  });

  it("ends with deleting and recreating the primary", () => {
    assert.deepEqual(steps.at(-1), { op: "recreate" });
    assert.equal(describeStep({ op: "recreate" }), "delete and recreate the primary");
  });

  it("describes a step with its reason and validity", () => {
    assert.equal(
      describeStep({ op: "set", path: ["spec", "replicas"], value: 6, valid: false, why: "maximum+1" }),
      "spec.replicas = 6 (maximum+1, invalid)",
    );
  });
});

describe("applyChange", () => {
  it("sets a nested field (creating its parents) and removes one, without touching the input", () => {
    const obj = { spec: { size: "small" } };
    const set = applyChange(obj, {
      op: "set",
      path: ["spec", "limits", "cpu"],
      value: 2,
      valid: true,
      why: "",
    });
    assert.deepEqual(set, { spec: { size: "small", limits: { cpu: 2 } } });
    assert.deepEqual(applyChange(set, { op: "remove", path: ["spec", "size"], why: "" }), {
      spec: { limits: { cpu: 2 } },
    });
    assert.deepEqual(obj, { spec: { size: "small" } });
  });
});

describe("planTrial", () => {
  const candidates = candidateSteps(schema, spec);

  it("is the same for the same seed and trial, and differs across seeds and trials", () => {
    assert.deepEqual(planTrial(candidates, 7, 3), planTrial(candidates, 7, 3));
    const plans = [1, 2, 3, 4].map((seed) => JSON.stringify(planTrial(candidates, seed, 0).indices));
    assert.ok(new Set(plans).size > 1, "different seeds give different sequences");
    const trials = [0, 1, 2, 3].map((trial) => JSON.stringify(planTrial(candidates, 7, trial).indices));
    assert.ok(new Set(trials).size > 1, "different trials give different sequences");
  });

  it("draws its steps from the candidates and perturbs every trial, its kills cycling k through 1..4", () => {
    const plans = Array.from({ length: 8 }, (_, t) => planTrial(candidates, 5, t));
    for (const plan of plans) {
      assert.deepEqual(
        plan.steps,
        plan.indices.map((i) => candidates[i]),
      );
    }
    for (const [t, p] of plans.entries()) {
      assert.ok(p.perturbation, `trial ${t} is perturbed`);
      if (p.perturbation.kind === "kill") assert.equal(p.perturbation.k, 1 + (t % 4));
      assert.ok(p.perturbation.at >= 0 && p.perturbation.at <= 4);
    }
  });

  it("chooses among the three classes by the seed, a stale view only of a resource seen watched", () => {
    const watched = ["configmaps", "widgets"];
    const plans = Array.from({ length: 40 }, (_, t) => planTrial(candidates, 3, t, watched));
    const kinds = new Set(plans.map((p) => p.perturbation?.kind));
    assert.deepEqual([...kinds].sort(), ["kill", "stale", "unobserved"]);
    for (const p of plans) {
      if (p.perturbation?.kind === "stale") assert.ok(watched.includes(p.perturbation.resource));
      if (p.perturbation?.kind === "unobserved") {
        assert.ok(unobservedPairs(p.steps).includes(p.perturbation.at), "both steps are spec changes");
      }
    }
    // Replayable: the same seed, trial and watched resources give the same plan.
    assert.deepEqual(planTrial(candidates, 3, 17, watched), plans[17]);
    // Nothing seen watched: no stale view, the trial kills instead.
    const blind = Array.from({ length: 40 }, (_, t) => planTrial(candidates, 3, t));
    assert.ok(blind.every((p) => p.perturbation?.kind !== "stale"));
  });

  it("pairs only spec changes for an unobserved pair, never a re-creation", () => {
    const set = candidates.find((s) => s.op === "set") as Step;
    const recreate: Step = { op: "recreate" };
    assert.deepEqual(unobservedPairs([set, set, recreate, set]), [1]);
    assert.deepEqual(unobservedPairs([recreate, set, recreate, set]), []);
    assert.deepEqual(unobservedPairs([set, recreate, set, set]), [3]);
  });

  it("keeps a perturbation with its step when steps are dropped, and drops it with its step", () => {
    const plan: TrialPlan = { ...planTrial(candidates, 5, 1), perturbation: { kind: "kill", at: 3, k: 2 } };
    const kept = keepSteps(plan, [2, 0]);
    assert.deepEqual(kept.indices, [plan.indices[0], plan.indices[2]]);
    assert.deepEqual(kept.perturbation, { kind: "kill", at: 2, k: 2 });
    assert.equal(keepSteps(plan, [0, 1]).perturbation, undefined);
    const atCreation: TrialPlan = { ...plan, perturbation: { kind: "kill", at: 0, k: 1 } };
    assert.deepEqual(keepSteps(atCreation, []).perturbation, { kind: "kill", at: 0, k: 1 });
  });

  it("keeps a stale view with its step, resource and all", () => {
    const plan: TrialPlan = {
      ...planTrial(candidates, 5, 1),
      perturbation: { kind: "stale", at: 4, resource: "configmaps" },
    };
    assert.deepEqual(keepSteps(plan, [1, 3]).perturbation, { kind: "stale", at: 2, resource: "configmaps" });
    assert.equal(keepSteps(plan, [0, 1, 2]).perturbation, undefined);
    const atCreation: TrialPlan = { ...plan, perturbation: { kind: "stale", at: 0, resource: "parcels" } };
    assert.deepEqual(keepSteps(atCreation, []).perturbation, { kind: "stale", at: 0, resource: "parcels" });
  });

  it("keeps an unobserved pair only while both its steps stay, moved together", () => {
    const plan: TrialPlan = { ...planTrial(candidates, 5, 1), perturbation: { kind: "unobserved", at: 2 } };
    assert.deepEqual(keepSteps(plan, [1, 2, 3]).perturbation, { kind: "unobserved", at: 1 });
    assert.deepEqual(keepSteps(plan, [0, 1, 2]).perturbation, { kind: "unobserved", at: 2 });
    assert.equal(keepSteps(plan, [0, 2, 3]).perturbation, undefined, "its first step dropped");
    assert.equal(keepSteps(plan, [0, 1, 3]).perturbation, undefined, "its second step dropped");
  });
});
