/**
 * The conformance kit on the LoadTest operator: every check of kubeloop's principles, under
 * faults, on a control plane of the test's own (the kit's: pods run on kwok, the apiserver without a
 * watch cache so an etcd compaction forces 410s). The spec is ./conformance.ts, which `kubeloop
 * verify` also takes. A LoadTest's spec is immutable, so generation-honesty has no spec change to
 * judge and is skipped; every other check must pass.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { checkNames, formatFailure, formatReport, runConformance } from "kubeloop/testing/conformance";
import spec from "../conformance.ts";

test("the LoadTest operator passes every conformance check that applies to it", {
  timeout: 2_400_000,
}, async (t) => {
  const report = await runConformance(spec);
  t.diagnostic(formatReport(report));
  assert.deepEqual(
    report.results.map((r) => r.name),
    [...checkNames],
  );
  for (const result of report.results) {
    const skipped = result.name === "generation-honesty" || result.name === "exclusive-outputs";
    const expected = skipped ? "skipped" : "passed";
    assert.equal(result.outcome, expected, `${result.name}: ${formatFailure(result) || result.summary}`);
  }
  const summary = (name: string) => report.results.find((r) => r.name === name)?.summary ?? "";
  assert.match(summary("generation-honesty"), /no `mutate` in the spec/);
  assert.match(summary("exclusive-outputs"), /shared with other writers/);
  assert.match(summary("leadership-fenced"), /none and no other request after/);
  assert.match(summary("outputs-watched"), /deleted, left deleted/);
  assert.equal(report.ok, true);
});
