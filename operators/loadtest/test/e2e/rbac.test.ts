/**
 * bug 1.7.12: the operator's generated RBAC is enough. The Manager runs as a ServiceAccount bound
 * to the ClusterRole from `manifestsOf(operator)`, not as the admin, and still reads the script
 * ConfigMap, creates the Job, writes status and records events — and may do nothing else.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { manifestsOf, permissionsOf } from "kubeloop/generate";
import { createServiceAccount, serviceAccountKubeconfig } from "../../../../test/e2e/schema/credentials.ts";
import operator from "../../operator.ts";
import {
  conditionOf,
  createLoadTest,
  eventually,
  kubectl,
  startOperator,
  testClient,
  waitForLoadTest,
} from "./harness.ts";

test("bug 1.7.12: generated permissions include configmaps get/list/watch and jobs write", async () => {
  const permissions = await permissionsOf(operator);
  const verbs = (plural: string) =>
    permissions.filter((p) => p.type.plural === plural && !p.subresource).flatMap((p) => p.verbs);
  assert.deepEqual(new Set(verbs("configmaps")), new Set(["get", "list", "watch"]));
  for (const verb of ["create", "update", "patch", "delete", "get", "list", "watch"])
    assert.ok(verbs("jobs").includes(verb), `jobs ${verb}`);
  const rbac = (await manifestsOf(operator, { namespace: "loadtest-system" })).get("rbac.yaml") ?? "";
  assert.match(rbac, /kind: ClusterRole\n/);
  assert.match(rbac, /- configmaps\n {4}verbs:\n {6}- get\n {6}- list\n {6}- watch/);
});

test("bug 1.7.12: the operator runs a load test under its generated RBAC alone", async (t) => {
  const admin = await testClient();
  const as = (namespace: string) => `--as=system:serviceaccount:${namespace}:${operator.name}`;
  const { namespace } = await startOperator(t, {
    credentials: async (namespace) => {
      await createServiceAccount(admin, namespace, operator.name);
      const rbac = (await manifestsOf(operator, { namespace })).get("rbac.yaml") ?? "";
      await kubectl(["apply", "--server-side", "-f", "-"], { input: rbac });
      await eventually(
        async () =>
          (await kubectl(["auth", "can-i", "watch", "configmaps", "-A", as(namespace)])).stdout.trim() ===
          "yes",
        { what: "the generated ClusterRole to take effect" },
      );
      return serviceAccountKubeconfig(t, admin, namespace, operator.name);
    },
  });

  await createLoadTest(namespace, "least", { count: 2 });
  const done = await waitForLoadTest(
    namespace,
    "least",
    (o) => conditionOf(o, "Completed")?.status === "True",
    "done",
  );
  assert.equal(conditionOf(done, "Completed")?.reason, "Succeeded");
  for (const [verb, resource] of [
    ["delete", "pods"],
    ["get", "secrets"],
  ] as const) {
    const answer = await kubectl(["auth", "can-i", verb, resource, "-n", namespace, as(namespace)], {
      allowFail: true,
    });
    assert.equal(answer.stdout.trim(), "no", `no ${verb} ${resource}`);
  }
});
