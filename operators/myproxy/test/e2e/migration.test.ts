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
  Client,
  ConfigMap,
  type ConfigMapObject,
  Deployment,
  type DeploymentObject,
  Event,
  type KubeObject,
  type ResourceType,
} from "kubeloop";
import { loadKubeconfig } from "kubeloop/client";
import { controllerReference } from "kubeloop/ownership";
import { startOperator } from "kubeloop/testing";
import { kubeconfigPath, managerMetric } from "../../../../test/e2e/support.ts";
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

const PREVIOUS = "manager";
const PREVIOUS_CONFIG = "server { listen 80; }\n";

/**
 * The children the previous operator made for `proxy`: its own configuration, an older image, and
 * more (a metrics port, an env entry, a cache volume, another configuration file). Its first
 * version had neither the metrics port nor the other file.
 */
function previousChildren(proxy: MyProxyObject, version: 1 | 2 = 2): [ConfigMapObject, DeploymentObject] {
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

/** A client of the previous operator. */
async function previousOperator(t: TestContext): Promise<Client> {
  const client = new Client(await loadKubeconfig({ kubeconfig: kubeconfigPath() }), {
    fieldManager: PREVIOUS,
  });
  t.after(() => client.close());
  return client;
}

const typeOf = (child: KubeObject) =>
  (child.kind === "Deployment" ? Deployment : ConfigMap) as ResourceType<KubeObject>;

test("children a previous operator created are taken over: the MyProxy converges without a failed reconcile", async (t) => {
  await migrate(t, async (previous, children) => {
    for (const child of children) await previous.create(typeOf(child), child);
  });
});

test("children a previous operator created and then updated are taken over the same way", async (t) => {
  await migrate(t, async (previous, children, proxy) => {
    for (const [first, child] of previousChildren(proxy, 1).map((c, i) => [c, children[i]] as const)) {
      assert.ok(child);
      const type = typeOf(first);
      const { name = "", namespace } = first.metadata;
      await previous.create(type, first);
      // CreateOrUpdate's update: read, mutate, write (again on a 409: the Deployment's status moved).
      await eventually(async () => {
        const current = await previous.get(type, name, { namespace });
        const { metadata: _, ...content } = child;
        return previous.update(type, { ...current, ...content });
      });
    }
  });
});

/** Creates a MyProxy and its children as the previous operator wrote them, then runs this operator. */
async function migrate(
  t: TestContext,
  write: (previous: Client, children: KubeObject[], proxy: MyProxyObject) => Promise<void>,
): Promise<void> {
  const ns = await testNamespace(t);
  const proxy = await createProxy(ns, "edge");
  await write(await previousOperator(t), previousChildren(proxy), proxy);

  const running = await startOperator(operator, {
    kubeconfig: kubeconfigPath(),
    manager: { namespace: ns, metrics: { host: "127.0.0.1", port: 0 } },
  });
  t.after(() => running.stop());
  const ready = await waitForCondition(MyProxy, ns, "edge", { type: "Ready", status: "True" }, 90_000);

  const client = await testClient();
  const [configMap, deployment] = await eventually(
    async () => {
      const cm = await client.get(ConfigMap, configMapName("edge"), { namespace: ns });
      const dep = await client.get(Deployment, "edge", { namespace: ns });
      return asDesired(cm, dep, ready) && ([cm, dep] as const);
    },
    { what: "the ConfigMap and Deployment as this operator desires them" },
  );
  for (const child of [configMap, deployment])
    for (const entry of child.metadata.managedFields ?? [])
      if (entry.manager === PREVIOUS)
        assert.deepEqual(Object.keys(entry.fieldsV1 ?? {}), ["f:metadata"], `${child.kind}: no content`);

  for (const kind of ["ConfigMap", "Deployment"])
    assert.equal(
      await managerMetric(running.manager, "kubeloop_drift_repairs_total", { kind, manager: PREVIOUS }),
      1,
      `the ${kind}'s drift reported once`,
    );
  assert.equal(await managerMetric(running.manager, "controller_runtime_reconcile_errors_total"), 0);
  assert.equal(await managerMetric(running.manager, "controller_runtime_terminal_reconcile_errors_total"), 0);
  await running.manager.recorder.flush(AbortSignal.timeout(10_000));
  const { items } = await client.list(Event, { namespace: ns });
  assert.deepEqual(
    items.filter((e) => e.reason === "ReconcileError").map((e) => e.note),
    [],
  );
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
