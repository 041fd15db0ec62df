/**
 * The conformance kit on myproxy: every check of kubeloop's principles, under faults, on a control
 * plane of the test's own (the kit's: pods run on kwok, the apiserver without a watch cache so an
 * etcd compaction forces 410s). The spec is ./conformance.ts, which `kubeloop verify` also takes.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { checkNames, formatFailure, formatReport, runConformance } from "kubeloop/testing/conformance";
import spec from "../conformance.ts";

test("myproxy passes every conformance check", { timeout: 2_400_000 }, async (t) => {
  const report = await runConformance(spec);
  t.diagnostic(formatReport(report));
  assert.deepEqual(
    report.results.map((r) => r.name),
    [...checkNames],
  );
  for (const result of report.results) {
    assert.equal(result.outcome, "passed", `${result.name}: ${formatFailure(result) || result.summary}`);
  }
  assert.equal(report.ok, true);
});
