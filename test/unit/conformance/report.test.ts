/** The report of a run as text: a cluster column and failures naming their member when the operator runs in a fleet. */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  type CheckResult,
  formatFailure,
  formatReport,
  formatTable,
} from "../../../src/testing/conformance/index.ts";

const passed: CheckResult = {
  name: "idempotent",
  title: "a settled object's reconcile writes nothing",
  outcome: "passed",
  summary: "0 writes",
  wallMs: 1000,
};
const failed: CheckResult = {
  name: "outputs-watched",
  title: "deleted or tampered outputs are repaired",
  outcome: "failed",
  summary: "not restored",
  failure: { expected: "restored", seen: "not restored", requests: [], logs: [] },
  wallMs: 2000,
};

test("a run on one cluster has no cluster column, and its failures name no member", () => {
  assert.match(formatTable([passed, failed]), /^check +result +time +took +details\nidempotent +✓/);
  assert.match(formatFailure(failed), /^✗ outputs-watched \(deleted or tampered outputs are repaired\)/);
});

test("a run in a fleet shows each result's member, and a failure names the member it failed on", () => {
  const results = [
    { ...passed, cluster: "member-0" },
    { ...failed, cluster: "member-0" },
    { ...passed, cluster: "member-1" },
  ];
  const rows = formatTable(results).split("\n");
  assert.match(rows[0] ?? "", /^cluster +check +result/);
  assert.deepEqual(
    rows.slice(1).map((row) => row.split(/ {2,}/).slice(0, 3)),
    [
      ["member-0", "idempotent", "✓"],
      ["member-0", "outputs-watched", "✗"],
      ["member-1", "idempotent", "✓"],
    ],
  );
  assert.match(formatFailure(results[1] as CheckResult), /^✗ outputs-watched on member-0 \(/);
  const report = formatReport({ operator: "parcels", results, ok: false, wallMs: 3000 });
  assert.match(report, /1 of 3 checks failed/);
});
