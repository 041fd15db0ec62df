/**
 * A MyProxy's own life: its Deployment and ConfigMap, its conditions and kstatus, podNames following
 * pod churn, no writes once settled, and cleanup when it is deleted.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { before, test } from "node:test";
import { ConfigMap, Deployment, kstatus, Pod } from "kubeloop";
import { MyProxy } from "../../api.ts";
import { CONFIG_HASH_ANNOTATION } from "../../deployment.ts";
import {
  conditionOf,
  configOf,
  createProxy,
  eventually,
  getOrGone,
  installCrds,
  kubectl,
  livePods,
  metric,
  startOperator,
  testClient,
  testNamespace,
  waitForCondition,
  writesSent,
} from "./support.ts";

before(installCrds);

test("a MyProxy gets an nginx Deployment of 2 replicas mounting its generated ConfigMap, and becomes Ready", async (t) => {
  const ns = await testNamespace(t);
  await startOperator(t, ns);
  const proxy = await createProxy(ns, "edge");

  const wait = await kubectl(["-n", ns, "wait", "--for=condition=Ready", "myproxy/edge", "--timeout=60s"], {
    allowFail: true,
  });
  assert.equal(wait.code, 0, wait.stderr);

  const deployment = await (await testClient()).get(Deployment, "edge", { namespace: ns });
  assert.equal(deployment.spec?.replicas, 2);
  assert.deepEqual(
    deployment.metadata.ownerReferences?.map((r) => [r.kind, r.uid, r.controller]),
    [["MyProxy", proxy.metadata.uid, true]],
  );
  const pod = deployment.spec?.template;
  assert.ok(pod?.spec);
  assert.equal(pod.metadata?.labels?.["app.kubernetes.io/instance"], "edge");
  assert.equal(pod.spec.containers[0]?.image, "nginx:1.27.3-alpine");
  assert.deepEqual(pod.spec.containers[0]?.volumeMounts, [
    { name: "config", mountPath: "/etc/nginx/conf.d", readOnly: true },
  ]);
  assert.equal(pod.spec.volumes?.[0]?.configMap?.name, "edge-nginx");
  const config = await configOf(ns, "edge");
  assert.match(config ?? "", /^# Routes \(0\):$/m);
  const hash = createHash("sha256")
    .update(config ?? "")
    .digest("hex");
  assert.equal(pod.metadata?.annotations?.[CONFIG_HASH_ANNOTATION], hash);
  const cm = await (await testClient()).get(ConfigMap, "edge-nginx", { namespace: ns });
  assert.equal(cm.metadata.ownerReferences?.[0]?.uid, proxy.metadata.uid);

  const ready = await waitForCondition(MyProxy, ns, "edge", {
    type: "Ready",
    status: "True",
    reason: "Serving",
  });
  const conditions = Object.fromEntries((ready.status?.conditions ?? []).map((c) => [c.type, c]));
  assert.deepEqual(Object.keys(conditions).sort(), ["Available", "Progressing", "Ready", "RoutesAdmitted"]);
  assert.equal(conditions.RoutesAdmitted?.reason, "AllRoutesAdmitted");
  assert.equal(conditions.Available?.reason, "MinimumReplicasAvailable");
  assert.equal(conditions.Progressing?.reason, "RolloutComplete");
  assert.equal(ready.status?.observedGeneration, 1);
  assert.equal(ready.status?.configHash, hash);
  assert.equal(kstatus(ready).status, "Current");
  const pods = await eventually(
    async () => {
      const current = await getOrGone(MyProxy, ns, "edge");
      return current?.status?.readyReplicas === 2 && current.status.podNames?.length === 2 && current;
    },
    { what: "two ready pods in status" },
  );
  const live = (await livePods(ns, "edge")).map((p) => p.metadata.name).sort();
  assert.deepEqual(pods.status?.podNames, live);
});

test("podNames follows a scale up, a scale down and a deleted pod being replaced", async (t) => {
  const ns = await testNamespace(t);
  await startOperator(t, ns);
  const client = await testClient();
  await createProxy(ns, "churn", { replicas: 1 });

  const matchesLivePods = async (count: number) => {
    const proxy = await getOrGone(MyProxy, ns, "churn");
    const live = (await livePods(ns, "churn")).map((p) => p.metadata.name).sort();
    const names = proxy?.status?.podNames ?? [];
    return live.length === count && JSON.stringify(names) === JSON.stringify(live) && names;
  };
  const [first] = await eventually(() => matchesLivePods(1), { what: "one pod listed" });

  await client.patch(MyProxy, "churn", { spec: { replicas: 3 } }, { type: "merge", namespace: ns });
  const three = await eventually(() => matchesLivePods(3), { what: "three pods listed" });
  assert.ok(three.includes(first as string), "the first pod stays");
  const scaled = await waitForCondition(MyProxy, ns, "churn", { type: "Ready", status: "True" });
  assert.equal(scaled.status?.readyReplicas, 3);

  await client.patch(MyProxy, "churn", { spec: { replicas: 1 } }, { type: "merge", namespace: ns });
  const [survivor] = await eventually(() => matchesLivePods(1), {
    what: "one pod listed after scaling down",
  });
  await eventually(
    async () => {
      const proxy = await getOrGone(MyProxy, ns, "churn");
      const ready = conditionOf(proxy, "Ready");
      return ready?.status === "True" && ready.observedGeneration === 3 && proxy?.status?.replicas === 1;
    },
    { what: "Ready again once scaled down to one pod" },
  );

  await client.delete(Pod, survivor as string, { namespace: ns });
  const [replacement] = await eventually(
    async () => {
      const names = await matchesLivePods(1);
      return names && names[0] !== survivor && names;
    },
    { what: "the deleted pod replaced in podNames" },
  );
  assert.notEqual(replacement, survivor);
});

test("a settled MyProxy reconciled again sends no write", async (t) => {
  const ns = await testNamespace(t);
  const manager = await startOperator(t, ns);
  await createProxy(ns, "calm");
  await waitForCondition(MyProxy, ns, "calm", { type: "Ready", status: "True" });
  await eventually(async () => (await getOrGone(MyProxy, ns, "calm"))?.status?.podNames?.length === 2, {
    what: "both pods listed",
  });
  const proxyBefore = await getOrGone(MyProxy, ns, "calm");
  const configBefore = await getOrGone(ConfigMap, ns, "calm-nginx");
  const writes = await writesSent(manager);
  const myproxy = manager.controllers.find((c) => c.name === "myproxy");
  assert.ok(myproxy, "the myproxy controller runs");

  for (let i = 0; i < 3; i++) {
    const reconciled = await metric(manager, "controller_runtime_reconcile_total", { controller: "myproxy" });
    myproxy.enqueue(`${ns}/calm`, "test");
    await eventually(
      async () =>
        (await metric(manager, "controller_runtime_reconcile_total", { controller: "myproxy" })) > reconciled,
      { what: `reconcile ${i + 1}` },
    );
  }
  assert.equal(await writesSent(manager), writes, "no POST, PUT, PATCH or DELETE was sent");
  const proxyAfter = await getOrGone(MyProxy, ns, "calm");
  assert.equal(proxyAfter?.metadata.resourceVersion, proxyBefore?.metadata.resourceVersion);
  const configAfter = await getOrGone(ConfigMap, ns, "calm-nginx");
  assert.equal(configAfter?.metadata.resourceVersion, configBefore?.metadata.resourceVersion);
});

test("deleting a MyProxy removes its Deployment, ConfigMap and pods", async (t) => {
  const ns = await testNamespace(t);
  await startOperator(t, ns);
  await createProxy(ns, "doomed");
  await waitForCondition(MyProxy, ns, "doomed", { type: "Ready", status: "True" });
  assert.equal((await livePods(ns, "doomed")).length, 2);

  await (await testClient()).delete(MyProxy, "doomed", { namespace: ns });
  await eventually(
    async () =>
      !(await getOrGone(Deployment, ns, "doomed")) &&
      !(await getOrGone(ConfigMap, ns, "doomed-nginx")) &&
      (await (await testClient()).list(Pod, { namespace: ns })).items.length === 0,
    { what: "the Deployment, ConfigMap and pods garbage-collected", timeoutMs: 120_000 },
  );
});

test("a MyProxy whose ConfigMap name another owner holds stalls without adopting it, and recovers once freed", async (t) => {
  const ns = await testNamespace(t);
  await startOperator(t, ns);
  const client = await testClient();
  const holder = await client.create(ConfigMap, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "holder", namespace: ns },
  });
  const ownerReferences = [
    { apiVersion: "v1", kind: "ConfigMap", name: "holder", uid: holder.metadata.uid ?? "", controller: true },
  ];
  await client.create(ConfigMap, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "taken-nginx", namespace: ns, ownerReferences },
    data: { "default.conf": "not ours" },
  });
  await createProxy(ns, "taken");

  const stalled = await waitForCondition(MyProxy, ns, "taken", {
    type: "Ready",
    status: "False",
    reason: "ChildConflict",
  });
  assert.equal(stalled.status?.conditions?.find((c) => c.type === "Stalled")?.status, "True");
  assert.match(stalled.status?.conditions?.find((c) => c.type === "Progressing")?.message ?? "", /holder/);
  assert.equal(kstatus(stalled).status, "Failed");
  assert.equal(await configOf(ns, "taken"), "not ours", "the other owner's ConfigMap is left alone");

  await client.delete(ConfigMap, "taken-nginx", { namespace: ns });
  await waitForCondition(MyProxy, ns, "taken", { type: "Ready", status: "True" }, 60_000);
  assert.match((await configOf(ns, "taken")) ?? "", /^# Generated by the myproxy operator/);
});
