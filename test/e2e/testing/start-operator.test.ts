/**
 * The testing kit for operator authors, on the run's cluster: `startOperator` installs an operator's
 * CRDs and runs it in-process (pointed at an existing cluster, as `$KUBELOOP_TEST_KUBECONFIG` does),
 * `testNamespace` gives a test its own namespace and deletes it afterwards.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import { pathToFileURL } from "node:url";
import { CustomResourceDefinition } from "../../../src/api/index.ts";
import { ConfigMap, Namespace, type Operator } from "../../../src/index.ts";
import { eventually, startOperator, testNamespace } from "../../../src/testing/index.ts";
import { checkout, operatorModule } from "../cli/project.ts";
import { kubeconfigPath, testClient } from "../support.ts";

const group = `kit-${randomBytes(3).toString("hex")}.e2e.kubeloop.dev`;

/** The Bolt operator of the CLI tests (each Bolt gets a ConfigMap holding its length), on this checkout's sources. */
async function boltOperator(t: TestContext): Promise<Operator> {
  const dir = mkdtempSync(join(tmpdir(), "kubeloop-kit-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, "operator.mjs");
  writeFileSync(file, operatorModule(group, join(checkout, "src", "index.ts")));
  return (await import(pathToFileURL(file).href)).default as Operator;
}

test("startOperator installs the CRDs, runs the operator on the given cluster, and testNamespace cleans up", async (t) => {
  const admin = await testClient();
  const operator = await boltOperator(t);
  const running = await startOperator(operator, { kubeconfig: kubeconfigPath() });
  t.after(async () => {
    await running.stop();
    await admin.delete(CustomResourceDefinition, `bolts.${group}`).catch(() => undefined);
  });
  assert.equal(running.manager.ready, true, "it resolves once the caches synced");
  let namespace = "";
  await t.test("a Bolt gets its ConfigMap", async (sub) => {
    namespace = await testNamespace(running.client, sub);
    assert.match(namespace, /^a-bolt-gets-its-configmap-[0-9a-f]{6}$/);
    const [Bolt] = operator.kinds;
    assert.ok(Bolt);
    await running.client.create(Bolt, {
      apiVersion: Bolt.apiVersion,
      kind: Bolt.kind,
      metadata: { name: "m8", namespace },
      spec: { length: 40 },
    });
    const data = await eventually(async () => (await admin.get(ConfigMap, "m8-length", { namespace })).data, {
      what: "the ConfigMap of Bolt m8",
    });
    assert.deepEqual(data, { length: "40" });
  });
  const ns = await admin.get(Namespace, namespace);
  assert.ok(ns.metadata.deletionTimestamp, "the test's namespace is being deleted once the test ended");
});
