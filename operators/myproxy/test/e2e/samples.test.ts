/** The samples users copy work as their comments say. */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { ReplicaSet } from "kubeloop/api";
import { MyProxy, ProxyRoute } from "../../api.ts";
import { CONFIG_HASH_ANNOTATION, INSTANCE_LABEL } from "../../deployment.ts";
import {
  conditionOf,
  configOf,
  eventually,
  getOrGone,
  installCrds,
  kubectl,
  metric,
  routesIn,
  startOperator,
  testClient,
  testNamespace,
  waitForCondition,
} from "./support.ts";

before(installCrds);

const samples = fileURLToPath(new URL("../../samples/", import.meta.url));

test("the samples give a Ready proxy serving two routes, the third reporting its missing backend", async (t) => {
  const ns = await testNamespace(t);
  const manager = await startOperator(t, ns);

  // The routes come a moment after the MyProxy: once its first reconcile has run.
  await kubectl(["apply", "-n", ns, "-f", `${samples}backends.yaml`]);
  await kubectl(["apply", "-n", ns, "-f", `${samples}myproxy.yaml`]);
  const reconciles = () => metric(manager, "controller_runtime_reconcile_total", { controller: "myproxy" });
  await eventually(async () => (await reconciles()) > 0, { what: "the MyProxy's first reconcile" });
  await kubectl(["apply", "-n", ns, "-f", `${samples}routes.yaml`]);

  const proxy = await waitForCondition(MyProxy, ns, "edge", { type: "Ready", status: "True" });
  assert.equal(proxy.spec.replicas, 2);
  const resources = { requests: { cpu: "50m", memory: "32Mi" }, limits: { memory: "64Mi" } };
  assert.deepEqual(proxy.spec.nginx.resources, resources);
  for (const name of ["api", "web"])
    await waitForCondition(ProxyRoute, ns, name, { type: "Accepted", status: "True" });
  const legacy = await waitForCondition(ProxyRoute, ns, "legacy", {
    type: "Accepted",
    status: "False",
    reason: "BackendNotFound",
  });
  assert.match(conditionOf(legacy, "Accepted")?.message ?? "", /Service legacy not found/);
  const config = await eventually(
    async () => {
      const current = await configOf(ns, "edge");
      return routesIn(current).join() === "api,web" && current;
    },
    { what: "the configuration of the two accepted routes" },
  );
  assert.match(config, new RegExp(`proxy_pass http://api\\.${ns}\\.svc\\.cluster\\.local:8080;`));
  const table = await kubectl(["get", "-n", ns, "proxyroutes"]);
  assert.match(
    table.stdout,
    /^legacy\s+False\s+BackendNotFound\s+edge\s+www\.example\.com\s+\/legacy\s+legacy/m,
  );
  // Applied within moments, the MyProxy and its routes roll out once: one ReplicaSet, with the final hash.
  const client = await testClient();
  const { items } = await client.list(ReplicaSet, { namespace: ns, labelSelector: `${INSTANCE_LABEL}=edge` });
  assert.deepEqual(items[0]?.spec?.template?.spec?.containers[0]?.resources, resources);
  assert.deepEqual(
    items.map((rs) => rs.spec?.template?.metadata?.annotations?.[CONFIG_HASH_ANNOTATION]),
    [(await getOrGone(MyProxy, ns, "edge"))?.status?.configHash],
    "one ReplicaSet, of the configuration with the routes",
  );
});
