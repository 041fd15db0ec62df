/**
 * The myproxy operator under exactly the RBAC `kubeloop generate` writes for it, not as the admin:
 * a MyProxy with a route becomes Ready, a new backend rolls its pods, a ConfigMap changed or
 * deleted by hand is put back — every write through `ensureChild` and `writeStatus`, every event —
 * and no request is refused, though it may not update or delete anything it owns.
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { Deployment } from "kubeloop";
import { permissionsOf } from "kubeloop/generate";
import { generatedRbacKubeconfig } from "../../../../test/e2e/schema/credentials.ts";
import { MyProxy, ProxyRoute } from "../../api.ts";
import { CONFIG_HASH_ANNOTATION } from "../../deployment.ts";
import operator from "../../operator.ts";
import {
  configOf,
  createProxy,
  createRoute,
  createService,
  eventsAbout,
  eventually,
  installCrds,
  kubectl,
  OPERATOR,
  routesIn,
  startOperator,
  testClient,
  testNamespace,
  waitForCondition,
} from "./support.ts";

before(installCrds);

test("generated permissions let myproxy read, create and patch its children, never update or delete them", async () => {
  const permissions = await permissionsOf(operator);
  const verbs = (plural: string, subresource?: string) =>
    new Set(
      permissions
        .filter((p) => p.type.plural === plural && p.subresource === subresource)
        .flatMap((p) => p.verbs),
    );
  for (const child of ["configmaps", "deployments"]) {
    assert.deepEqual(verbs(child), new Set(["create", "get", "list", "patch", "watch"]), child);
  }
  for (const watched of ["services", "pods"])
    assert.deepEqual(verbs(watched), new Set(["get", "list", "watch"]));
  for (const primary of ["myproxies", "proxyroutes"]) {
    assert.deepEqual(verbs(primary, "status"), new Set(["get", "patch"]), `${primary}/status`);
  }
});

test("myproxy's main flows run under its generated RBAC alone, and nothing is refused", async (t) => {
  const admin = await testClient();
  const ns = await testNamespace(t);
  // Generated RBAC is for cert-manager's certificates (generate's default): the operator applies no
  // webhook configuration then, and a local run cannot take cert-manager's place, so no webhook.
  const kubeconfig = await generatedRbacKubeconfig(t, admin, operator, ns);
  const manager = await startOperator(t, ns, { kubeconfig, webhooks: false });

  await createService(ns, "web", [{ port: 80 }]);
  await createProxy(ns, "edge");
  await createRoute(ns, "home", { proxy: "edge", host: "example.com", service: "web", port: 80 });
  await waitForCondition(ProxyRoute, ns, "home", { type: "Accepted", status: "True" });
  await waitForCondition(MyProxy, ns, "edge", { type: "Ready", status: "True" });
  const hashOf = async () =>
    (await admin.get(Deployment, "edge", { namespace: ns })).spec?.template.metadata?.annotations?.[
      CONFIG_HASH_ANNOTATION
    ];
  const firstHash = await hashOf();

  await t.test("a new backend updates the configuration and rolls the Deployment", async () => {
    await createRoute(ns, "late", { proxy: "edge", host: "late.example.com", service: "late", port: 80 });
    await createService(ns, "late", [{ port: 80 }]);
    await waitForCondition(ProxyRoute, ns, "late", { type: "Accepted", status: "True" });
    await eventually(async () => routesIn(await configOf(ns, "edge")).join() === "home,late", {
      what: "both routes in the configuration",
    });
    await eventually(async () => (await hashOf()) !== firstHash, { what: "the Deployment rolled" });
  });

  await t.test("a ConfigMap changed, then deleted, by hand is put back and the repair reported", async () => {
    const config = await configOf(ns, "edge");
    await kubectl([
      "-n",
      ns,
      "patch",
      "configmap",
      "edge-nginx",
      "--type=merge",
      "-p",
      '{"data":{"default.conf":"x"}}',
    ]);
    await eventually(async () => (await configOf(ns, "edge")) === config, { what: "the patch undone" });
    await kubectl(["-n", ns, "delete", "configmap", "edge-nginx"]);
    await eventually(async () => (await configOf(ns, "edge")) === config, {
      what: "the ConfigMap recreated",
    });
    await eventually(async () => (await eventsAbout(ns, "edge", "DriftRepaired")).length === 2, {
      what: "two DriftRepaired events",
    });
  });

  await t.test("was never refused, and may not update or delete what it owns", async () => {
    const metrics = await manager.metrics.registry.metrics();
    assert.match(metrics, /rest_client_requests_total\{code="201",method="POST"[^}]*\} [1-9]/);
    assert.match(metrics, /rest_client_requests_total\{code="200",method="PATCH"[^}]*\} [1-9]/);
    assert.doesNotMatch(metrics, /rest_client_requests_total\{code="40[13]"/);
    assert.equal(manager.recorder.stats.failed, 0, "no event write was given up");
    const as = `--as=system:serviceaccount:${ns}:${OPERATOR}`;
    for (const verb of ["update", "delete"]) {
      for (const resource of ["configmaps", "deployments", "myproxies"]) {
        const answer = await kubectl(["auth", "can-i", verb, resource, "-n", ns, as], { allowFail: true });
        assert.equal(answer.stdout.trim(), "no", `no ${verb} ${resource}`);
      }
    }
  });
});
