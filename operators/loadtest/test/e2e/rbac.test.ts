/**
 * bug 1.7.12: the operator's generated RBAC is enough, and no more. The Manager runs as a
 * ServiceAccount holding exactly the roles in `manifestsOf(operator)`'s rbac.yaml, not as the
 * admin, and still reads the script ConfigMap, creates the Job, puts back a Job changed by hand,
 * writes status and records events — without one request refused — and may do nothing else.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Job } from "kubeloop";
import { manifestsOf, permissionsOf } from "kubeloop/generate";
import { generatedRbacKubeconfig } from "../../../../test/e2e/schema/credentials.ts";
import { jobLabels } from "../../job.ts";
import operator from "../../operator.ts";
import {
  conditionOf,
  createLoadTest,
  eventually,
  kubectl,
  operatorEvents,
  startOperator,
  testClient,
  waitForLoadTest,
} from "./harness.ts";

test("bug 1.7.12: generated permissions: configmaps and pods read-only, jobs read, create and patch, nothing updated or deleted", async () => {
  const permissions = await permissionsOf(operator);
  const verbs = (plural: string, subresource?: string) =>
    new Set(
      permissions
        .filter((p) => p.type.plural === plural && p.subresource === subresource)
        .flatMap((p) => p.verbs),
    );
  assert.deepEqual(verbs("configmaps"), new Set(["get", "list", "watch"]));
  assert.deepEqual(verbs("pods"), new Set(["get", "list", "watch"]), "worker pods, for Running events");
  assert.deepEqual(verbs("jobs"), new Set(["create", "get", "list", "patch", "watch"]));
  assert.deepEqual(verbs("loadtests"), new Set(["get", "list", "patch", "watch"]));
  assert.deepEqual(verbs("loadtests", "status"), new Set(["get", "patch"]));
  const rbac = (await manifestsOf(operator, { namespace: "loadtest-system" })).get("rbac.yaml") ?? "";
  assert.match(rbac, /kind: ClusterRole\n/);
  assert.match(rbac, /- configmaps\n {4}verbs:\n {6}- get\n {6}- list\n {6}- watch/);
});

test("bug 1.7.12: the operator runs a load test, and repairs its Job, under its generated RBAC alone", async (t) => {
  const admin = await testClient();
  const as = (namespace: string) => `--as=system:serviceaccount:${namespace}:${operator.name}`;
  const { namespace, requests } = await startOperator(t, {
    credentials: (namespace) => generatedRbacKubeconfig(t, admin, operator, namespace),
  });

  await createLoadTest(namespace, "least", { count: 2 });
  await eventually(() => admin.get(Job, "least", { namespace }), { what: "the Job" });
  await kubectl(["-n", namespace, "label", "job", "least", "--overwrite", "artillery.io/component=tampered"]);
  await eventually(
    async () =>
      (await admin.get(Job, "least", { namespace })).metadata.labels?.["artillery.io/component"] ===
      jobLabels("least", "loadtest-worker-master")["artillery.io/component"],
    { what: "the Job's label put back" },
  );
  const done = await waitForLoadTest(
    namespace,
    "least",
    (o) => conditionOf(o, "Completed")?.status === "True",
    "done",
  );
  assert.equal(conditionOf(done, "Completed")?.reason, "Succeeded");
  const reasons = (await operatorEvents(namespace, "least", ["Created", "DriftRepaired"])).map(
    (e) => e.reason,
  );
  assert.ok(
    reasons.includes("Created") && reasons.includes("DriftRepaired"),
    `events: ${reasons.join(", ")}`,
  );
  assert.equal(requests.answered("403"), 0, "no request of the operator was refused");
  assert.ok(
    requests.seen.some((o) => o.verb === "create" && o.code === "201"),
    "it created (the Job, events)",
  );
  for (const [verb, resource] of [
    ["delete", "pods"],
    ["get", "secrets"],
    ["delete", "jobs"],
    ["update", "jobs"],
    ["update", "loadtests"],
    ["delete", "loadtests"],
  ] as const) {
    const answer = await kubectl(["auth", "can-i", verb, resource, "-n", namespace, as(namespace)], {
      allowFail: true,
    });
    assert.equal(answer.stdout.trim(), "no", `no ${verb} ${resource}`);
  }
});
