import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type Condition,
  type ConditionStatus,
  findCondition,
  isFalse,
  isPresentAndEqual,
  isTrue,
  isUnknown,
  removeCondition,
} from "../../../src/status/index.ts";

function condition(type: string, status: ConditionStatus): Condition {
  return { type, status, lastTransitionTime: "2026-01-01T00:00:00Z", reason: "R", message: "" };
}

describe("removeCondition", () => {
  it("removes a present condition in place and returns true", () => {
    const conditions = [condition("A", "True"), condition("B", "False"), condition("C", "True")];
    const list = conditions;
    assert.equal(removeCondition(conditions, "B"), true);
    assert.equal(conditions, list);
    assert.deepEqual(
      conditions.map((c) => c.type),
      ["A", "C"],
    );
  });

  it("returns false and keeps the list when the type is absent", () => {
    const conditions = [condition("A", "True")];
    assert.equal(removeCondition(conditions, "B"), false);
    assert.deepEqual(conditions, [condition("A", "True")]);
  });

  it("returns false on an empty list", () => {
    assert.equal(removeCondition([], "A"), false);
  });

  it("removes every entry of the type", () => {
    const conditions = [condition("A", "True"), condition("B", "True"), condition("A", "False")];
    assert.equal(removeCondition(conditions, "A"), true);
    assert.deepEqual(conditions, [condition("B", "True")]);
  });
});

describe("findCondition", () => {
  it("returns the list's own entry", () => {
    const conditions = [condition("A", "True"), condition("B", "False")];
    assert.equal(findCondition(conditions, "B"), conditions[1]);
  });

  it("matches the type exactly, case included", () => {
    const conditions = [condition("Ready", "True")];
    assert.equal(findCondition(conditions, "ready"), undefined);
    assert.equal(findCondition(conditions, "Missing"), undefined);
  });
});

describe("isTrue / isFalse / isUnknown / isPresentAndEqual", () => {
  const conditions = [condition("T", "True"), condition("F", "False"), condition("U", "Unknown")];
  const table: [type: string, isTrue: boolean, isFalse: boolean, isUnknown: boolean][] = [
    ["T", true, false, false],
    ["F", false, true, false],
    ["U", false, false, true],
    ["Absent", false, false, true],
  ];
  for (const [type, t, f, u] of table) {
    it(`reads ${type}`, () => {
      assert.equal(isTrue(conditions, type), t);
      assert.equal(isFalse(conditions, type), f);
      assert.equal(isUnknown(conditions, type), u);
    });
  }

  it("isPresentAndEqual is false for an absent condition, whatever the status asked", () => {
    for (const status of ["True", "False", "Unknown"] as const) {
      assert.equal(isPresentAndEqual(conditions, "Absent", status), false);
    }
  });

  it("isPresentAndEqual compares the status of a present condition", () => {
    assert.equal(isPresentAndEqual(conditions, "U", "Unknown"), true);
    assert.equal(isPresentAndEqual(conditions, "U", "True"), false);
    assert.equal(isPresentAndEqual(conditions, "F", "False"), true);
  });
});
