/**
 * Issue 37: a child the apiserver refuses is on the MyProxy. A ResourceQuota forbidding
 * Deployments refuses the Deployment itself (the MyProxy says `QuotaExceeded`, naming the quota,
 * and serves once the quota is gone); one forbidding pods admits the Deployment but not its pods,
 * and the Deployment's `ReplicaFailure` (the ReplicaSet's `FailedCreate`) is carried up; an image
 * with whitespace, which the apiserver admits in a Deployment but refuses in a pod, is refused when
 * the MyProxy is created.
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { InvalidError, kstatus } from "kubeloop";
import { ResourceQuota } from "kubeloop/api";
import { MyProxy, type MyProxyObject } from "../../api.ts";
import {
  conditionOf,
  createProxy,
  eventsAbout,
  eventually,
  installCrds,
  kubectl,
  metric,
  startOperator,
  testClient,
  testNamespace,
  waitForCondition,
} from "./support.ts";

before(installCrds);

/**
 * Creates ResourceQuota `name` with `hard`, and waits until the quota controller has computed its
 * usage: until then the apiserver refuses what it limits as "status unknown", not "exceeded".
 */
async function quota(namespace: string, name: string, hard: string): Promise<void> {
  await kubectl(["create", "quota", name, "-n", namespace, `--hard=${hard}`]);
  const client = await testClient();
  await eventually(async () => (await client.get(ResourceQuota, name, { namespace })).status?.hard, {
    what: `ResourceQuota ${name} with its usage computed`,
  });
}

test("issue 37: a quota forbidding Deployments is on the MyProxy as QuotaExceeded, naming the quota, at once and without failed reconciles; it serves once the quota is gone", async (t) => {
  const ns = await testNamespace(t);
  const manager = await startOperator(t, ns);
  await quota(ns, "no-deployments", "count/deployments.apps=0");
  await createProxy(ns, "edge", { replicas: 1 });

  const refused = await waitForCondition(MyProxy, ns, "edge", {
    type: "Ready",
    status: "False",
    reason: "QuotaExceeded",
  });
  const progressing = conditionOf(refused, "Progressing");
  assert.deepEqual([progressing?.status, progressing?.reason], ["False", "QuotaExceeded"]);
  assert.match(
    progressing?.message ?? "",
    /^deployments\.apps "edge" is forbidden: exceeded quota: no-deployments, requested: count\/deployments\.apps=1, .*raise the quota/,
  );
  assert.equal(conditionOf(refused, "Ready")?.message, progressing?.message);
  assert.equal(conditionOf(refused, "Available")?.reason, "DeploymentNotFound");
  assert.deepEqual(
    [conditionOf(refused, "Reconciling")?.status, kstatus(refused).status],
    ["True", "InProgress"],
    "retried, not stalled: raising the quota is enough",
  );
  const errors = await metric(manager, "controller_runtime_reconcile_errors_total", {
    controller: "myproxy",
  });
  assert.equal(errors, 0, "a refusal is reported, not thrown and logged as a failed reconcile");
  const warnings = await eventsAbout(ns, "edge", "QuotaExceeded");
  assert.ok(
    warnings.some((e) => e.type === "Warning"),
    "a Warning event for the transition",
  );

  await kubectl(["delete", "quota", "no-deployments", "-n", ns]);
  await waitForCondition(MyProxy, ns, "edge", { type: "Ready", status: "True", reason: "Serving" }, 90_000);
});

test("issue 37: a quota forbidding pods carries the Deployment's ReplicaFailure (FailedCreate) and the apiserver's message up to the MyProxy", async (t) => {
  const ns = await testNamespace(t);
  await startOperator(t, ns);
  await quota(ns, "no-pods", "pods=0");
  await createProxy(ns, "edge");

  const failed = await waitForCondition(
    MyProxy,
    ns,
    "edge",
    { type: "Ready", status: "False", reason: "FailedCreate" },
    60_000,
  );
  const podsRefused =
    /^Deployment edge: pods "edge-[a-z0-9]+-[a-z0-9]+" is forbidden: exceeded quota: no-pods, requested: pods=1/;
  for (const type of ["Available", "Progressing"]) {
    const condition = conditionOf(failed, type);
    assert.deepEqual([condition?.status, condition?.reason], ["False", "FailedCreate"], type);
  }
  assert.match(conditionOf(failed, "Progressing")?.message ?? "", podsRefused);
  assert.match(
    conditionOf(failed, "Available")?.message ?? "",
    /^0\/2 pods ready; Deployment edge: pods .*exceeded quota: no-pods/,
  );
  assert.match(conditionOf(failed, "Ready")?.message ?? "", /exceeded quota: no-pods/);
  assert.equal(kstatus(failed).status, "InProgress");
});

test("issue 37: an image with whitespace, which would make pods the apiserver refuses, is refused when the MyProxy is created, in both versions", async (t) => {
  const ns = await testNamespace(t);
  const answer = await createProxy(ns, "spaced", { nginx: { image: " nginx" } }).catch((err: unknown) => err);
  assert.ok(answer instanceof InvalidError, String(answer));
  assert.match(answer.message, /spec\.nginx\.image/);

  const v1alpha1: Omit<MyProxyObject, "spec"> & { spec: object } = {
    apiVersion: `${MyProxy.group}/v1alpha1`,
    kind: MyProxy.kind,
    metadata: { name: "spaced-alpha", namespace: ns },
    spec: { image: "nginx:1.27 " },
  };
  const created = await kubectl(["create", "-f", "-"], { input: JSON.stringify(v1alpha1), allowFail: true });
  assert.notEqual(created.code, 0, created.stdout);
  assert.match(created.stderr, /spec\.image/);
});
