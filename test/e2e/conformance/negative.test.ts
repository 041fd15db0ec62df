/**
 * The checks catch violations: each deliberately broken variant of the test operator fails the
 * check of the principle it breaks, with a report saying what was expected, what was seen, and
 * which of the operator's requests were involved.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  formatFailure,
  generationHonesty,
  idempotent,
  openSession,
  runCheck,
  runConformance,
  statusRebuild,
} from "../../../src/testing/conformance/index.ts";
import { parcelSpec } from "./fixtures/spec.ts";
import { kitCluster } from "./support.ts";

const cluster = kitCluster();
const quick = { timings: { repairMs: 20_000, convergeMs: 60_000 } };

test("an operator that writes status on every reconcile fails idempotent; the report names its status writes", {
  timeout: 600_000,
}, async (t) => {
  const report = await runConformance(parcelSpec("status-every-reconcile", quick), {
    cluster: cluster(),
    checks: ["idempotent"],
  });
  const [result] = report.results;
  assert.ok(result?.failure, "idempotent failed");
  t.diagnostic(formatFailure(result));
  assert.equal(report.ok, false);
  assert.match(
    result.failure.expected,
    /^no write when every object is reconciled again \(\d+ reconciles forced; 2 settled primary object/,
  );
  assert.match(result.failure.seen, /^[1-9]\d* write\(s\): PATCH parcels\/status$/);
  assert.ok(result.failure.requests.length > 0);
  for (const request of result.failure.requests) {
    assert.equal(request.method, "PATCH");
    assert.match(
      request.path,
      /^\/apis\/conformance\.kubeloop\.dev\/v1\/namespaces\/kl-idempotent-\w+\/parcels\/(plain|signed)\/status\?/,
    );
  }
  assert.match(
    formatFailure(result),
    /requests involved:\n {4}#\d+ PATCH \/apis\/conformance\.kubeloop\.dev\/v1\/namespaces\/kl-idempotent-\w+\/parcels\/\w+\/status\?fieldManager=parcels-status-every-reconcile → 200/,
  );
});

test("an operator that does not watch its outputs fails outputs-watched: its tampered ConfigMaps are never restored", {
  timeout: 600_000,
}, async (t) => {
  const report = await runConformance(parcelSpec("unwatched-outputs", quick), {
    cluster: cluster(),
    checks: ["outputs-watched"],
  });
  const [result] = report.results;
  assert.ok(result?.failure, "outputs-watched failed");
  t.diagnostic(formatFailure(result));
  assert.match(
    result.failure.expected,
    /^every tampered output restored \(ConfigMap\/\w+-label: \/data\/\w+ → ".*-tampered"/,
  );
  assert.match(result.failure.expected, /within 20 s$/);
  assert.match(result.failure.seen, /ConfigMap\/\w+-label: data\.\w+: expected ".*", seen ".*-tampered"/);
  assert.match(
    formatFailure(result),
    /requests involved: none \(the operator sent no write and no request failed\)/,
  );
});

test("an operator that forgot .owns() for a kind it creates fails outputs-watched, naming the kind and the fix", {
  timeout: 600_000,
}, async (t) => {
  const report = await runConformance(parcelSpec("undeclared-output", quick), {
    cluster: cluster(),
    checks: ["outputs-watched"],
  });
  const [result] = report.results;
  assert.ok(result?.failure, "outputs-watched failed");
  t.diagnostic(formatFailure(result));
  assert.match(result.failure.expected, /^every kind of object a primary object controls declared as owned/);
  assert.match(
    result.failure.seen,
    /^ServiceAccount \(v1\) is not declared: ServiceAccount\/\w+-courier \(of Parcel\/\w+\), ServiceAccount\/\w+-courier \(of Parcel\/\w+\) — add `\.owns\(ServiceAccount\)` to the controller and list it in the spec's `outputs`$/,
  );
});

test("an operator that leaves foreign fields in its outputs fails exclusive-outputs, naming them", {
  timeout: 600_000,
}, async (t) => {
  const report = await runConformance(parcelSpec("shared-outputs", quick), {
    cluster: cluster(),
    checks: ["exclusive-outputs"],
  });
  const [result] = report.results;
  assert.ok(result?.failure, "exclusive-outputs failed");
  t.diagnostic(formatFailure(result));
  assert.match(
    result.failure.expected,
    /^every field kubeloop-conformance added to an exclusive output removed within 20 s$/,
  );
  assert.match(
    result.failure.seen,
    /^still there \(or the output gone\) in ConfigMap\/\w+-label, ConfigMap\/\w+-label:/,
  );
});

test("an operator that reports the new generation before acting fails generation-honesty", {
  timeout: 600_000,
}, async (t) => {
  const report = await runConformance(parcelSpec("early-generation", quick), {
    cluster: cluster(),
    checks: ["generation-honesty"],
  });
  const [result] = report.results;
  assert.ok(result?.failure, "generation-honesty failed");
  t.diagnostic(formatFailure(result));
  assert.match(
    result.failure.expected,
    /^no status of Parcel\/signed claiming generation 2 before the operator's first successful output write for it \(at \+\d+\.\d s; writes held 5\.0 s\)/,
  );
  assert.match(result.failure.seen, /\+\d+\.\d s: claims generation 2 \(metadata\.generation 2\)/);
  const held = result.failure.requests.find((r) => r.faults.includes("blackhole"));
  assert.ok(held, "the held output write is among the requests");
  assert.match(held.path, /\/configmaps\/signed-label\?/);
  assert.ok(
    result.failure.requests.some((r) => /\/parcels\/signed\/status/.test(r.path) && r.id < held.id),
    "the early status write came before the held output write",
  );
});

test("an operator that keeps time in status fails status-rebuild, naming the field", {
  timeout: 600_000,
}, async (t) => {
  const report = await runConformance(parcelSpec("history-in-status", quick), {
    cluster: cluster(),
    checks: ["status-rebuild"],
  });
  const [result] = report.results;
  assert.ok(result?.failure, "status-rebuild failed");
  t.diagnostic(formatFailure(result));
  assert.match(result.failure.expected, /^every wiped status rebuilt identical \(lastTransitionTime aside\)/);
  assert.match(result.failure.seen, /Parcel\/plain: firstSeen: expected "\S+", seen "\S+"/);
  assert.match(result.failure.seen, /Parcel\/signed: firstSeen: expected "\S+", seen "\S+"/);
  assert.ok(
    result.failure.requests.some((r) => /\/parcels\/\w+\/status/.test(r.path) && r.method === "PATCH"),
  );
});

test("checks are reusable one by one on a session: the same operator passes what its broken twins fail", {
  timeout: 600_000,
}, async () => {
  const session = await openSession(parcelSpec("parcels", quick), { cluster: cluster() });
  try {
    for (const check of [idempotent, statusRebuild, generationHonesty, idempotent]) {
      const result = await runCheck(session, check);
      assert.equal(result.outcome, "passed", `${check.name}: ${formatFailure(result)}`);
      assert.equal(result.name, check.name);
    }
    assert.equal(session.operator.running, true);
    assert.deepEqual(session.liveNamespaces(), [], "each check deleted its namespaces");
  } finally {
    await session.close();
  }
});
