/**
 * Migrating to the MyProxy operator from a previous one (a kubebuilder operator, field manager
 * `manager`, as controller-runtime names it): the MyProxy's ConfigMap and Deployment already
 * exist, made by that operator with a controller reference to the MyProxy — by a plain create, as
 * `CreateOrUpdate` creates, or created and then updated (a PUT) as `CreateOrUpdate` updates — and
 * holding more than this operator desires. Started as deployed (the testing kit's
 * `startOperator`, writing as the operator's name), the operator makes both its own: the MyProxy
 * converges to Ready, each child holds what it desires and no more, the drift is reported once
 * per child, and no reconcile fails.
 */
import assert from "node:assert/strict";
import { before, type TestContext, test } from "node:test";
import {
  ConfigMap,
  type ConfigMapObject,
  Deployment,
  type DeploymentObject,
  type KubeObject,
  type ResourceType,
} from "kubeloop";
import { controllerReference } from "kubeloop/ownership";
import {
  assertClaimsNoContent,
  assertNoFailedReconcile,
  PREVIOUS_OPERATOR,
  type PreviousWrite,
  startAsDeployed,
  writeAsPreviousOperator,
} from "../../../../test/e2e/fixtures/previous-operator.ts";
import { managerMetric } from "../../../../test/e2e/support.ts";
import { MyProxy, type MyProxyObject } from "../../api.ts";
import { configMapName, desiredConfigMap, desiredDeployment } from "../../deployment.ts";
import operator from "../../operator.ts";
import {
  createProxy,
  eventually,
  installCrds,
  testClient,
  testNamespace,
  waitForCondition,
} from "./support.ts";

before(installCrds);

const PREVIOUS_CONFIG = "server { listen 80; }\n";

/**
 * The children the previous operator made for `proxy`: its own configuration, an older image, and
 * more (an env entry, a cache volume; from its second version on, a metrics port and another
 * configuration file).
 */
function previousChildren(proxy: MyProxyObject, version: 1 | 2): [ConfigMapObject, DeploymentObject] {
  const owned = <T extends KubeObject>(obj: T): T => ({
    ...obj,
    metadata: { ...obj.metadata, ownerReferences: [controllerReference(proxy)] },
  });
  const configMap = owned(desiredConfigMap(proxy, PREVIOUS_CONFIG));
  const deployment = owned(desiredDeployment(proxy, "previous-hash"));
  const pod = deployment.spec?.template.spec;
  const [nginx] = pod?.containers ?? [];
  assert.ok(pod && nginx);
  nginx.image = "nginx:1.25";
  nginx.env = [{ name: "WORKER_PROCESSES", value: "auto" }];
  nginx.volumeMounts?.push({ name: "cache", mountPath: "/var/cache/nginx" });
  pod.volumes?.push({ name: "cache", emptyDir: {} });
  if (version === 1) return [configMap, deployment];
  configMap.data = { ...configMap.data, "legacy.conf": "# from the previous operator\n" };
  nginx.ports?.push({ name: "metrics", containerPort: 9113 });
  return [configMap, deployment];
}

const typeOf = (child: KubeObject) =>
  (child.kind === "Deployment" ? Deployment : ConfigMap) as ResourceType<KubeObject>;

test("children a previous operator created are taken over: the MyProxy converges without a failed reconcile", async (t) => {
  await migrate(t, (proxy) => previousChildren(proxy, 2).map((child) => ({ child })));
});

test("children a previous operator created and then updated are taken over the same way", async (t) => {
  await migrate(t, (proxy) => {
    const first = previousChildren(proxy, 1);
    return previousChildren(proxy, 2).map((child, i) => ({ child, first: first[i] }));
  });
});

/** Creates a MyProxy and its children as the previous operator wrote them, then runs this operator. */
async function migrate(t: TestContext, writes: (proxy: MyProxyObject) => PreviousWrite[]): Promise<void> {
  const ns = await testNamespace(t);
  const proxy = await createProxy(ns, "edge");
  await writeAsPreviousOperator(t, writes(proxy), typeOf);

  const running = await startAsDeployed(t, operator, ns);
  const ready = await waitForCondition(MyProxy, ns, "edge", { type: "Ready", status: "True" }, 90_000);
  const client = await testClient();
  const children = await eventually(
    async () => {
      const cm = await client.get(ConfigMap, configMapName("edge"), { namespace: ns });
      const dep = await client.get(Deployment, "edge", { namespace: ns });
      return asDesired(cm, dep, ready) && [cm, dep];
    },
    { what: "the ConfigMap and Deployment as this operator desires them" },
  );
  for (const child of children) assertClaimsNoContent(child);
  for (const kind of ["ConfigMap", "Deployment"]) {
    const labels = { kind, manager: PREVIOUS_OPERATOR };
    const drifts = await managerMetric(running.manager, "kubeloop_drift_repairs_total", labels);
    assert.equal(drifts, 1, `the ${kind}'s drift reported once`);
  }
  await assertNoFailedReconcile(running, ns);
}

/** True when the children hold what the operator desires for `proxy`, and nothing the previous one added. */
function asDesired(configMap: ConfigMapObject, deployment: DeploymentObject, proxy: MyProxyObject): boolean {
  const pod = deployment.spec?.template.spec;
  const [nginx] = pod?.containers ?? [];
  return (
    Object.keys(configMap.data ?? {}).join() === "default.conf" &&
    configMap.data?.["default.conf"] !== PREVIOUS_CONFIG &&
    nginx?.image === proxy.spec.nginx.image &&
    nginx.ports?.map((p) => p.name).join() === "http" &&
    nginx.env === undefined &&
    nginx.volumeMounts?.map((m) => m.name).join() === "config" &&
    pod?.volumes?.map((v) => v.name).join() === "config"
  );
}
