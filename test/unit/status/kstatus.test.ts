import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ObjectMeta } from "../../../src/api/index.ts";
import { kstatus } from "../../../src/status/index.ts";

interface Loose {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

function obj(status?: unknown, metadata: ObjectMeta = { name: "x", generation: 2 }) {
  return { apiVersion: "example.com/v1", kind: "Widget", metadata, status };
}

function cond(type: string, status: string, reason = `${type}Reason`, message = `${type} message`): Loose {
  return { type, status, reason, message, lastTransitionTime: "2026-01-01T00:00:00Z" } as Loose;
}

describe("kstatus", () => {
  it("is Terminating once deletionTimestamp is set, before anything else", () => {
    const deleting = obj(
      { observedGeneration: 1, conditions: [cond("Stalled", "True")] },
      { name: "x", generation: 2, deletionTimestamp: "2026-01-01T00:00:00Z" },
    );
    assert.deepEqual(kstatus(deleting), {
      status: "Terminating",
      message: "Resource scheduled for deletion",
    });
  });

  it("is InProgress with LatestGenerationNotObserved when observedGeneration lags", () => {
    const lagging = obj({
      observedGeneration: 1,
      conditions: [cond("Ready", "True"), cond("Stalled", "True")],
    });
    assert.deepEqual(kstatus(lagging), {
      status: "InProgress",
      reason: "LatestGenerationNotObserved",
      message: "Widget generation is 2, but latest observed generation is 1",
    });
  });

  it("skips the generation check without status.observedGeneration", () => {
    assert.equal(kstatus(obj({ conditions: [cond("Ready", "True")] })).status, "Current");
  });

  it("skips the generation check without metadata.generation", () => {
    const result = kstatus(
      obj({ observedGeneration: 7, conditions: [cond("Ready", "True")] }, { name: "x" }),
    );
    assert.equal(result.status, "Current");
  });

  it("is InProgress with the Reconciling condition's reason and message when it is True", () => {
    const reconciling = obj({
      observedGeneration: 2,
      conditions: [cond("Ready", "True"), cond("Reconciling", "True")],
    });
    assert.deepEqual(kstatus(reconciling), {
      status: "InProgress",
      reason: "ReconcilingReason",
      message: "Reconciling message",
    });
  });

  it("is Failed with the Stalled condition's message when it is True", () => {
    const stalled = obj({
      observedGeneration: 2,
      conditions: [cond("Ready", "True"), cond("Stalled", "True")],
    });
    assert.deepEqual(kstatus(stalled), {
      status: "Failed",
      reason: "StalledReason",
      message: "Stalled message",
    });
  });

  it("takes whichever of Reconciling and Stalled comes first in the list, as kstatus does", () => {
    const both = [cond("Stalled", "True"), cond("Reconciling", "True")];
    assert.equal(kstatus(obj({ conditions: both })).status, "Failed");
    assert.equal(kstatus(obj({ conditions: both.toReversed() })).status, "InProgress");
  });

  it("ignores Reconciling and Stalled unless True", () => {
    for (const status of ["False", "Unknown"]) {
      const conditions = [cond("Reconciling", status), cond("Stalled", status), cond("Ready", "True")];
      assert.equal(kstatus(obj({ conditions })).status, "Current", status);
    }
  });

  const readyTable: [status: string, expected: string][] = [
    ["True", "Current"],
    ["False", "InProgress"],
    ["Unknown", "InProgress"],
  ];
  for (const [status, expected] of readyTable) {
    it(`falls back on Ready=${status} → ${expected}, with its reason and message`, () => {
      assert.deepEqual(kstatus(obj({ observedGeneration: 2, conditions: [cond("Ready", status)] })), {
        status: expected,
        reason: "ReadyReason",
        message: "Ready message",
      });
    });
  }

  it("is Current with no known conditions", () => {
    const expected = { status: "Current", message: "Resource is current" };
    assert.deepEqual(kstatus(obj(undefined)), expected);
    assert.deepEqual(kstatus(obj({ observedGeneration: 2, conditions: [] })), expected);
    assert.deepEqual(
      kstatus(obj({ conditions: [cond("Succeeded", "False"), cond("Available", "False")] })),
      expected,
    );
  });

  it("reads malformed status defensively", () => {
    assert.equal(kstatus(obj("broken")).status, "Current");
    assert.equal(kstatus(obj({ conditions: "Ready" })).status, "Current");
    assert.equal(
      kstatus(obj({ conditions: [null, 3, { type: "Ready" }, { status: "True" }] })).status,
      "Current",
    );
    assert.equal(
      kstatus(obj({ observedGeneration: "1", conditions: [cond("Ready", "True")] })).status,
      "Current",
    );
  });

  it("omits reason and defaults message when the deciding condition lacks them", () => {
    assert.deepEqual(kstatus(obj({ conditions: [{ type: "Stalled", status: "True" }] })), {
      status: "Failed",
      message: "",
    });
  });
});
