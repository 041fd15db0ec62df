/** The samples users copy work as their comments say. */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { MyProxy, ProxyRoute } from "../../api.ts";
import {
  conditionOf,
  configOf,
  eventually,
  installCrds,
  kubectl,
  routesIn,
  startOperator,
  testNamespace,
  waitForCondition,
} from "./support.ts";

before(installCrds);

const samples = fileURLToPath(new URL("../../samples/", import.meta.url));

test("the samples give a Ready proxy serving two routes, the third reporting its missing backend", async (t) => {
  const ns = await testNamespace(t);
  await startOperator(t, ns);

  await kubectl(["apply", "-n", ns, "-f", samples]);

  const proxy = await waitForCondition(MyProxy, ns, "edge", { type: "Ready", status: "True" });
  assert.equal(proxy.spec.replicas, 2);
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
});
