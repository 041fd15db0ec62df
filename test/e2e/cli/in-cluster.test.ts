/**
 * The generated deployment, run as a pod runs it (fixtures/deployed.ts), with the published CLI:
 * it authenticates as the ServiceAccount, with a token bound to its Pod, and may do only what the
 * generated RBAC grants: sync its caches, win its Lease, reconcile, serve its endpoints.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { ConfigMap, Lease } from "../../../src/api/index.ts";
import { deploy } from "../fixtures/deployed.ts";
import { eventually, kubectl, testClient } from "../support.ts";
import { cli, operatorModule } from "./project.ts";

test("the generated deployment runs in-cluster: service-account token, generated RBAC, Lease, reconciles, endpoints", async (t) => {
  const group = `incluster-${randomBytes(3).toString("hex")}.e2e.kubeloop.dev`;
  const namespace = `bolts-${randomBytes(3).toString("hex")}`;
  // The published CLI and a plain ES module on this checkout's build (dist/).
  const operator = await deploy(t, {
    module: operatorModule(group),
    moduleFile: "operator.mjs",
    cli: [process.execPath, cli],
    generate: ["--namespace", namespace],
  });
  const replica = await operator.startReplica();
  await replica.ready(60_000);

  const admin = await testClient();
  const lease = await eventually(
    async () => (await admin.get(Lease, "bolts", { namespace })).spec?.holderIdentity,
    { what: "the operator to hold its Lease" },
  );
  assert.equal(lease, replica.holderIdentity, "the identity comes from the downward API");
  await kubectl(["apply", "-n", namespace, "-f", "-"], {
    input: JSON.stringify({
      apiVersion: `${group}/v1`,
      kind: "Bolt",
      metadata: { name: "m8" },
      spec: { length: 40 },
    }),
  });
  const data = await eventually(async () => (await admin.get(ConfigMap, "m8-length", { namespace })).data, {
    what: "the ConfigMap of Bolt m8, written under the generated RBAC",
  });
  assert.deepEqual(data, { length: "40" });
  const written = await admin.get(ConfigMap, "m8-length", { namespace });
  assert.deepEqual(
    written.metadata.managedFields?.map((e) => e.manager),
    ["bolts"],
    "it writes as the operator's name, as startOperator's operator does",
  );
  const anonymous = await fetch(`https://127.0.0.1:${replica.ports.metrics}/metrics`, {
    // @ts-expect-error Node's fetch takes undici's dispatcher; the serving certificate is self-signed.
    dispatcher: new (await import("undici")).Agent({ connect: { rejectUnauthorized: false } }),
  });
  assert.equal(anonymous.status, 401, "secure metrics refuse a caller without a token");

  const output = () => replica.output.join("\n");
  assert.equal(await operator.stop(replica), 0, `SIGTERM stops it cleanly; output:\n${output()}`);
  assert.doesNotMatch(output(), /Warning|Forbidden|\bforbidden\b/, "no Node warning, no RBAC denial");
});
