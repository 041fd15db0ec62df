/**
 * The outputs of a MyProxy are outputs: a ConfigMap edited or deleted by hand, or a Deployment
 * deleted, is put back promptly, and the repair is reported as a Warning event naming who changed it
 * and as `kubeloop_drift_repairs_total{kind,manager}`.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { before, type TestContext, test } from "node:test";
import { promisify } from "node:util";
import { ConfigMap, Deployment, type Manager } from "kubeloop";
import { binary, kubeconfigPath } from "../../../../test/e2e/support.ts";
import { MyProxy } from "../../api.ts";
import { CONFIG_HASH_ANNOTATION } from "../../deployment.ts";
import {
  configOf,
  createProxy,
  eventsAbout,
  eventually,
  getOrGone,
  installCrds,
  kubectl,
  livePods,
  metric,
  OPERATOR,
  startOperator,
  testClient,
  testNamespace,
  waitForCondition,
} from "./support.ts";

before(installCrds);

const drifts = (manager: Manager, kind: string, by: string) =>
  metric(manager, "kubeloop_drift_repairs_total", { kind, manager: by });

/** A namespace with the operator and a Ready MyProxy `edge`; returns its configuration too. */
async function readyProxy(t: TestContext) {
  const ns = await testNamespace(t);
  const manager = await startOperator(t, ns);
  await createProxy(ns, "edge");
  await waitForCondition(MyProxy, ns, "edge", { type: "Ready", status: "True" });
  const config = (await configOf(ns, "edge")) as string;
  return { ns, manager, config };
}

/** The DriftRepaired events about MyProxy `edge`, once there are `count`. */
async function driftEvents(ns: string, count: number) {
  return eventually(
    async () => {
      const found = await eventsAbout(ns, "edge", "DriftRepaired");
      return found.length === count && found;
    },
    { what: `${count} DriftRepaired events` },
  );
}

test("a ConfigMap patched by hand is restored; the event and metric name the field manager", async (t) => {
  const { ns, manager, config } = await readyProxy(t);
  const template = (await (await testClient()).get(Deployment, "edge", { namespace: ns })).spec?.template;
  assert.equal(await drifts(manager, "ConfigMap", "tamperer"), 0);

  const tampered = JSON.stringify({ data: { "default.conf": "server { listen 80; return 500; }\n" } });
  await kubectl([
    "-n",
    ns,
    "patch",
    "configmap",
    "edge-nginx",
    "--type=merge",
    "-p",
    tampered,
    "--field-manager=tamperer",
  ]);

  await eventually(async () => (await configOf(ns, "edge")) === config, {
    what: "the configuration restored",
    timeoutMs: 10_000,
  });
  await eventually(async () => (await drifts(manager, "ConfigMap", "tamperer")) === 1, {
    what: "kubeloop_drift_repairs_total for tamperer",
  });
  const [event] = await driftEvents(ns, 1);
  assert.equal(event?.type, "Warning");
  assert.equal(event?.regarding?.kind, "MyProxy");
  assert.equal(event?.related?.name, "edge-nginx");
  assert.equal(event?.reportingController, OPERATOR);
  assert.match(
    event?.note ?? "",
    /^ConfigMap edge-nginx was modified by tamperer \(Update at .+\); restored it$/,
  );
  const after = (await (await testClient()).get(Deployment, "edge", { namespace: ns })).spec?.template;
  assert.equal(
    after?.metadata?.annotations?.[CONFIG_HASH_ANNOTATION],
    template?.metadata?.annotations?.[CONFIG_HASH_ANNOTATION],
    "a repaired tamper does not roll the pods",
  );
});

test("a kubectl edit of the ConfigMap is restored and attributed to kubectl-edit", async (t) => {
  const { ns, manager, config } = await readyProxy(t);

  await promisify(execFile)(
    binary("kubectl"),
    [`--kubeconfig=${kubeconfigPath()}`, "-n", ns, "edit", "configmap/edge-nginx"],
    // Only nginx's "return 404": a bare 404 can be in the uid too (about one object in a hundred;
    // kubectl then finds no original object with the edited uid, and fails).
    { env: { ...process.env, KUBE_EDITOR: "sed -i s/return.404/return.418/" } },
  );

  await eventually(async () => (await drifts(manager, "ConfigMap", "kubectl-edit")) === 1, {
    what: "kubeloop_drift_repairs_total for kubectl-edit",
  });
  assert.equal(await configOf(ns, "edge"), config);
  const [event] = await driftEvents(ns, 1);
  assert.match(event?.note ?? "", /was modified by kubectl-edit/);
});

test("a deleted ConfigMap is recreated and the repair reported", async (t) => {
  const { ns, manager, config } = await readyProxy(t);
  const before = await (await testClient()).get(ConfigMap, "edge-nginx", { namespace: ns });

  await kubectl(["-n", ns, "delete", "configmap", "edge-nginx"]);

  const recreated = await eventually(
    async () => {
      const cm = await getOrGone(ConfigMap, ns, "edge-nginx");
      return cm && cm.metadata.uid !== before.metadata.uid && cm;
    },
    { what: "the ConfigMap recreated", timeoutMs: 10_000 },
  );
  assert.equal(recreated.data?.["default.conf"], config);
  await eventually(async () => (await drifts(manager, "ConfigMap", "unknown")) === 1, {
    what: "the deletion counted",
  });
  const [event] = await driftEvents(ns, 1);
  assert.equal(
    event?.note,
    "ConfigMap edge-nginx was deleted (deleted by someone other than this controller); restored it",
  );
});

test("a deleted Deployment is recreated, and its new pods listed", async (t) => {
  const { ns, manager } = await readyProxy(t);
  const before = await (await testClient()).get(Deployment, "edge", { namespace: ns });
  const oldPods = (await livePods(ns, "edge")).map((p) => p.metadata.name);

  await kubectl(["-n", ns, "delete", "deployment", "edge", "--wait=false"]);

  const recreated = await eventually(
    async () => {
      const deployment = await getOrGone(Deployment, ns, "edge");
      return deployment && deployment.metadata.uid !== before.metadata.uid && deployment;
    },
    { what: "the Deployment recreated", timeoutMs: 10_000 },
  );
  assert.deepEqual(
    recreated.spec?.template.metadata?.annotations,
    before.spec?.template.metadata?.annotations,
  );
  await eventually(async () => (await drifts(manager, "Deployment", "unknown")) === 1, {
    what: "the deletion counted",
  });
  await eventually(
    async () => {
      const proxy = await getOrGone(MyProxy, ns, "edge");
      const live = (await livePods(ns, "edge")).map((p) => p.metadata.name).sort();
      const fresh = live.length === 2 && live.every((name) => !oldPods.includes(name));
      return fresh && JSON.stringify(proxy?.status?.podNames) === JSON.stringify(live);
    },
    { what: "two new pods listed in podNames", timeoutMs: 120_000 },
  );
  await waitForCondition(MyProxy, ns, "edge", { type: "Ready", status: "True" });
});

test("a Deployment scaled by hand is scaled back, and the scaler named", async (t) => {
  const { ns, manager } = await readyProxy(t);

  await kubectl(["-n", ns, "scale", "deployment", "edge", "--replicas=5"]);

  const restored = await eventually(
    async () => {
      const deployment = await getOrGone(Deployment, ns, "edge");
      const repaired = (await drifts(manager, "Deployment", "kubectl")) === 1;
      return repaired && deployment?.spec?.replicas === 2 && deployment;
    },
    { what: "the replicas restored and the repair counted" },
  );
  assert.equal(restored.spec?.replicas, 2);
  const [event] = await driftEvents(ns, 1);
  assert.equal(event?.note, "Deployment edge was modified by kubectl (Update); restored it");
});

test("issue 13: fields someone adds to the Deployment (hostNetwork, an env entry) are removed, the writer named; rollout restart's annotation stays", async (t) => {
  const { ns, manager } = await readyProxy(t);
  await kubectl(["-n", ns, "rollout", "restart", "deployment", "edge"]);
  const restartedAt = "kubectl.kubernetes.io/restartedAt";
  const patch = {
    spec: {
      template: {
        spec: { hostNetwork: true, containers: [{ name: "nginx", env: [{ name: "DEBUG", value: "1" }] }] },
      },
    },
  };
  await kubectl(["-n", ns, "patch", "deployment", "edge", "-p", JSON.stringify(patch)]);

  const restored = await eventually(
    async () => {
      const deployment = await getOrGone(Deployment, ns, "edge");
      const spec = deployment?.spec?.template.spec;
      return spec?.hostNetwork === undefined && spec?.containers[0]?.env === undefined && deployment;
    },
    { what: "hostNetwork and the env entry removed", timeoutMs: 15_000 },
  );
  assert.ok(
    restored.spec?.template.metadata?.annotations?.[restartedAt],
    "kubectl rollout restart is a co-writer",
  );
  await eventually(async () => (await drifts(manager, "Deployment", "kubectl-patch")) === 1, {
    what: "kubeloop_drift_repairs_total for kubectl-patch",
  });
  const [event] = await driftEvents(ns, 1);
  assert.match(
    event?.note ?? "",
    /^Deployment edge was modified by kubectl-patch \(Update at .+\); restored it$/,
  );
  assert.equal(event?.related?.kind, "Deployment");
});
