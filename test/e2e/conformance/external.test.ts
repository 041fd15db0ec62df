/**
 * The kit against a cluster it did not start (the run's shared one, from its kubeconfig): it cannot
 * compact etcd nor restart the apiserver there, so the proxy answers the resumed watches with 410
 * and makes the apiserver unreachable for a while instead — and the checks still prove the same.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { formatFailure, formatReport, runConformance } from "../../../src/testing/conformance/index.ts";
import { kubeconfigPath } from "../support.ts";
import { parcelSpec } from "./fixtures/spec.ts";
import { resultOf } from "./support.ts";

test("against a kubeconfig's cluster, 410s and the outage come from the proxy", {
  timeout: 900_000,
}, async (t) => {
  const report = await runConformance(parcelSpec("parcels"), {
    kubeconfig: kubeconfigPath(),
    checks: ["idempotent", "watch-expiry", "transient-failures"],
  });
  t.diagnostic(formatReport(report));
  for (const result of report.results) {
    assert.equal(result.outcome, "passed", `${result.name}: ${formatFailure(result) || result.summary}`);
  }
  assert.match(
    resultOf(report, "watch-expiry").summary,
    /^the proxy answered the resumed watches with 410; relisted/,
  );
  assert.match(
    resultOf(report, "transient-failures").summary,
    /apiserver unreachable for 3 s \(at the proxy\)/,
  );
});
