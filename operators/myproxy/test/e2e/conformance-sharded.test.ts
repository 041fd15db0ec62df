/**
 * The conformance kit on myproxy deployed sharded: three replicas share 16 virtual shards by
 * namespace (a MyProxy, its routes and its outputs live in one namespace, so they go to one
 * replica together), and every check of the kit runs against the three as one operator — a crash
 * kills all three, each takes its shards back under its identity. leadership-fenced needs one
 * leader and is skipped; per-shard fencing is proven in test/e2e/sharding.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { checkNames, formatFailure, formatReport, runConformance } from "kubeloop/testing/conformance";
import spec from "../conformance.ts";

test("myproxy sharded across three replicas passes every conformance check that applies", {
  timeout: 2_400_000,
}, async (t) => {
  const report = await runConformance(spec, { sharding: { replicas: 3, shards: 16, key: "namespace" } });
  t.diagnostic(formatReport(report));
  assert.deepEqual(
    report.results.map((r) => r.name),
    [...checkNames],
  );
  for (const result of report.results) {
    const expected = result.name === "leadership-fenced" ? "skipped" : "passed";
    assert.equal(result.outcome, expected, `${result.name}: ${formatFailure(result) || result.summary}`);
  }
  assert.match(report.results.find((r) => r.name === "leadership-fenced")?.summary ?? "", /^sharded/);
  assert.equal(report.ok, true);
});
