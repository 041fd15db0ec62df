/**
 * The conformance kit per member cluster: the kit's Parcel operator runs in a fleet of two member
 * clusters (`testFleet`), and `runConformance({ fleet })` runs idempotent and outputs-watched on
 * each member in turn. A fault is planted in member-1 only: a ValidatingAdmissionPolicy refusing
 * any update that takes a tampered value out of a ConfigMap, so the operator cannot repair its
 * tampered outputs there. Member-0 passes both checks; member-1 passes idempotent and fails
 * outputs-watched, the report naming member-1 and the operator's refused requests to it.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from "../../../src/api/index.ts";
import type { Client } from "../../../src/client/index.ts";
import { formatFailure, formatReport, runConformance } from "../../../src/testing/conformance/index.ts";
import { testFleet } from "../../../src/testing/index.ts";
import { parcelSpec } from "../conformance/fixtures/spec.ts";
import { testClient } from "../support.ts";

const POLICY = "refuse-repairs";

/** Plants the fault in a member: ConfigMap updates removing a value with "tampered" in it are refused. */
async function refuseRepairs(client: Client): Promise<void> {
  await client.create(ValidatingAdmissionPolicy, {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name: POLICY },
    spec: {
      failurePolicy: "Fail",
      matchConstraints: {
        resourceRules: [
          { apiGroups: [""], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["configmaps"] },
        ],
      },
      validations: [
        {
          expression:
            "!(has(oldObject.data) && oldObject.data.exists(k, oldObject.data[k].contains('tampered')) && " +
            "!(has(object.data) && object.data.exists(k, object.data[k].contains('tampered'))))",
          message: "planted fault: tampered ConfigMaps stay tampered in this member",
        },
      ],
    },
  });
  await client.create(ValidatingAdmissionPolicyBinding, {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicyBinding",
    metadata: { name: POLICY },
    spec: { policyName: POLICY, validationActions: ["Deny"] },
  });
}

test("the conformance checks run on each member of a fleet, and fail on the member with the planted fault only", {
  timeout: 600_000,
}, async (t) => {
  const fleet = await testFleet(await testClient(), t, { members: 2 });
  await refuseRepairs(fleet.member(1).client);
  const report = await runConformance(
    parcelSpec("parcels", { timings: { repairMs: 10_000, convergeMs: 60_000 } }),
    {
      fleet: fleet.members.map((m) => ({ name: m.name, kubeconfig: m.cluster.kubeconfigPath })),
      checks: ["idempotent", "outputs-watched"],
    },
  );
  t.diagnostic(formatReport(report));
  assert.deepEqual(
    report.results.map((r) => [r.cluster, r.name, r.outcome]),
    [
      ["member-0", "idempotent", "passed"],
      ["member-0", "outputs-watched", "passed"],
      ["member-1", "idempotent", "passed"],
      ["member-1", "outputs-watched", "failed"],
    ],
  );
  assert.equal(report.ok, false);
  const failed = report.results[3];
  assert.ok(failed?.failure);
  assert.match(formatFailure(failed), /^✗ outputs-watched on member-1 \(/);
  assert.match(failed.failure.expected, /^every tampered output restored/);
  assert.match(failed.failure.seen, /ConfigMap\/\w+-label: data\.\w+: expected ".*", seen ".*tampered"/);
  // The requests involved are the operator's to member-1, its repairs refused there.
  assert.ok(
    failed.failure.requests.some((r) => r.status === 422 && /\/configmaps\/\w+-label\?/.test(r.path)),
  );
  assert.match(formatReport(report), /^cluster +check +result/m);
});
