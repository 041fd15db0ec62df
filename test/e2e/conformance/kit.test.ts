/**
 * The conformance kit on its own well-behaved test operator (fixtures/parcel.ts): every check
 * runs, passes, and says what it measured — the faults really happened (kills, compaction, relist,
 * apiserver restart, dropped and silenced events), not just the absence of failures.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  checkNames,
  formatFailure,
  formatReport,
  runConformance,
} from "../../../src/testing/conformance/index.ts";
import { parcelSpec } from "./fixtures/spec.ts";
import { kitCluster, resultOf } from "./support.ts";

const cluster = kitCluster();

test("every check passes on a well-behaved operator, and each says what it measured", {
  timeout: 1_800_000,
}, async (t) => {
  const progress: string[] = [];
  const report = await runConformance(parcelSpec("parcels"), {
    cluster: cluster(),
    report: (line) => progress.push(line),
  });
  t.diagnostic(formatReport(report));
  assert.deepEqual(
    report.results.map((r) => r.name),
    [...checkNames],
  );
  for (const result of report.results) {
    assert.equal(result.outcome, "passed", `${result.name}: ${formatFailure(result) || result.summary}`);
    assert.ok(result.wallMs > 0);
  }
  assert.equal(report.ok, true);
  assert.equal(report.operator, "parcels");
  assert.ok(
    progress.some((line) => line === "crash-safety: passed"),
    "progress lines were reported",
  );

  assert.match(
    resultOf(report, "converge").summary,
    /from nothing .*outputs wrong while the operator was down .*the spec's messy start .*owned by another, after release/,
  );
  assert.match(resultOf(report, "idempotent").summary, /forced reconciles .*: 0 writes/);
  assert.match(
    resultOf(report, "outputs-watched").summary,
    /^2 tampered, restored in .*; 2 deleted, back in/,
  );
  assert.match(resultOf(report, "status-rebuild").summary, /^2 status\(es\) wiped, rebuilt identical/);
  assert.match(
    resultOf(report, "missed-events").summary,
    /dropped: [1-9]\d* events dropped.*silenced: [1-9]\d* events silenced, watches reconnected on inactivity/,
  );
  assert.match(
    resultOf(report, "watch-expiry").summary,
    /^etcd compacted at revision \d+; relisted, deleted ConfigMap\//,
  );
  assert.match(
    resultOf(report, "cache-heals").summary,
    /every event of .* dropped \([1-9]\d*\): converged in .* after a relist found [1-9]\d* missed object/,
  );
  assert.match(resultOf(report, "crash-safety").summary, /^killed 5× \(after \d+ write/);
  assert.match(
    resultOf(report, "finalizers").summary,
    /^2 finalized object\(s\); killed as it removed a finalizer after cleanup; deleted in .*, nothing left; a namespace deleted in/,
  );
  assert.match(
    resultOf(report, "transient-failures").summary,
    /^[1-9]\d* requests faulted, apiserver restarted/,
  );
  assert.match(
    resultOf(report, "generation-honesty").summary,
    /status versions seen, none ahead of the work; settled/,
  );
  assert.doesNotMatch(resultOf(report, "generation-honesty").summary, /altered no output/);
  assert.match(
    resultOf(report, "exclusive-outputs").summary,
    /^foreign fields added to ConfigMap\/\w+-label \/data\/kl_conformance_foreign, ConfigMap\/\w+-label \/data\/kl_conformance_foreign: removed in .*, attributed$/,
  );
  assert.match(
    resultOf(report, "leadership-fenced").summary,
    /^Lease taken from the leader: it made \d+ write\(s\) before its renew deadline, none and no other request after \d+\.\d s, and exited; the standby repaired [1-9]\d* rounds of tampering in/,
  );
  for (const name of [
    "converge",
    "outputs-watched",
    "exclusive-outputs",
    "status-rebuild",
    "crash-safety",
    "transient-failures",
  ] as const) {
    assert.ok((resultOf(report, name).timeMs ?? -1) >= 0, `${name} reports a time to converge or repair`);
  }
});
