/**
 * The oracle "no reconcile error that is not on the object", on recorded reconcile outcomes and
 * Parcels as a settled trial leaves them: a failure still standing must show in the conditions; one
 * a later reconcile retried successfully is over.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../../src/api/index.ts";
import { unshownFailures } from "../../../src/testing/conformance/explore/failures.ts";
import type { ReconcileOutcome } from "../../../src/testing/conformance/internal/protocol.ts";

const apiVersion = "conformance.kubeloop.dev/v1";
const key = "kl-explore-3f0a1c/signed";

/** A Parcel of the trial's namespace with `conditions`. */
function parcel(conditions: Record<string, string>[]): KubeObject {
  return {
    apiVersion,
    kind: "Parcel",
    metadata: { name: "signed", namespace: "kl-explore-3f0a1c", generation: 2 },
    status: { observedGeneration: 2, conditions },
  } as KubeObject;
}

const ready = parcel([
  {
    type: "LabelPrinted",
    status: "True",
    reason: "Printed",
    message: "ConfigMap signed-label holds the label",
  },
  { type: "Ready", status: "True", reason: "Ready", message: "" },
]);

const failing = parcel([
  {
    type: "Ready",
    status: "False",
    reason: "ReconcileFailed",
    message: "failing since ...; last error: boom",
  },
  { type: "Reconciling", status: "True", reason: "ProgressingWithRetry", message: "" },
]);

let clock = 1_764_300_000_000;
function outcome(result: string, error?: string, changes: Partial<ReconcileOutcome> = {}): ReconcileOutcome {
  clock += 250;
  return { apiVersion, kind: "Parcel", key, result, ...(error ? { error } : {}), endedAt: clock, ...changes };
}

const courier = "the courier takes labels of at most 100 characters, not 200";
const conflict =
  'Operation cannot be fulfilled on parcels.conformance.kubeloop.dev "signed": the object has been modified; please apply your changes to the latest version and try again';

describe("unshownFailures", () => {
  it("reports a terminal failure left as the last outcome under a stale Ready=True, with the error and the conditions", () => {
    const outcomes = [outcome("success"), outcome("success"), outcome("error", courier)];
    const [problem, ...rest] = unshownFailures(outcomes, [ready]);
    assert.deepEqual(rest, []);
    assert.match(problem ?? "", /^Parcel\/signed: its last reconcile failed \(the courier takes labels/);
    assert.match(problem ?? "", /Ready=True \(Ready\)/);
    assert.match(problem ?? "", /LabelPrinted=True \(Printed: ConfigMap signed-label holds the label\)/);
  });

  it("counts a failure repeated until the run settled, routine or not", () => {
    const outcomes = [outcome("success"), outcome("error", conflict), outcome("error", conflict)];
    assert.match(
      unshownFailures(outcomes, [ready])[0] ?? "",
      /its last 2 reconciles failed \(Operation cannot/,
    );
  });

  it("does not report a 409 Conflict that the next reconcile retried successfully", () => {
    const outcomes = [outcome("success"), outcome("error", conflict), outcome("success")];
    assert.deepEqual(unshownFailures(outcomes, [ready]), []);
  });

  it("does not report a failure the conditions show (Ready=False, Reconciling=True)", () => {
    assert.deepEqual(unshownFailures([outcome("error", "boom")], [failing]), []);
    const stalled = parcel([
      { type: "Ready", status: "True", reason: "Ready" },
      { type: "Stalled", status: "True", reason: "InvalidChild", message: "ConfigMap signed-label refused" },
    ]);
    assert.deepEqual(unshownFailures([outcome("error", "boom")], [stalled]), []);
  });

  it("reports an object with no condition at all", () => {
    const bare = { ...ready, status: { observedGeneration: 2 } } as KubeObject;
    assert.match(
      unshownFailures([outcome("error", "boom")], [bare])[0] ?? "",
      /say nothing of it: no condition$/,
    );
  });

  it("judges each object by its own kind's reconciles only, at any version of the kind", () => {
    const otherKey = outcome("error", "boom", { key: "kl-explore-3f0a1c/plain" });
    const otherKind = outcome("error", "boom", { apiVersion: "v1", kind: "ConfigMap" });
    const otherVersion = outcome("error", courier, { apiVersion: "conformance.kubeloop.dev/v2" });
    assert.deepEqual(unshownFailures([outcome("success"), otherKey, otherKind], [ready]), []);
    assert.equal(unshownFailures([outcome("success"), otherVersion], [ready]).length, 1);
  });

  it("says nothing of an object the operator has no record of (its process restarted since)", () => {
    assert.deepEqual(unshownFailures([], [ready]), []);
  });
});
