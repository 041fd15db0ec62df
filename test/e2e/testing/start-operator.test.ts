/**
 * The testing kit for operator authors, on the run's cluster: `startOperator` installs an operator's
 * CRDs and runs it in-process (pointed at an existing cluster, as `$KUBELOOP_TEST_KUBECONFIG` does),
 * `testNamespace` gives a test its own namespace and deletes it afterwards; the operator's webhooks
 * are served for this process's test namespaces only, and their configurations go on stop.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import { pathToFileURL } from "node:url";
import { CustomResourceDefinition, ValidatingWebhookConfiguration } from "../../../src/api/index.ts";
import {
  ConfigMap,
  controller,
  defineOperator,
  InvalidError,
  type KubeObject,
  Namespace,
  type Operator,
  Secret,
} from "../../../src/index.ts";
import {
  eventually,
  startOperator,
  testNamespace,
  UndeclaredKindsError,
} from "../../../src/testing/index.ts";
import { Verdict, validating } from "../../../src/webhook/index.ts";
import { checkout, operatorModule } from "../cli/project.ts";
import { kubeconfigPath, testClient } from "../support.ts";

/** The field managers of `obj`'s content and metadata (status writers left out). */
const managersOf = (obj: KubeObject) =>
  (obj.metadata.managedFields ?? []).filter((e) => e.subresource !== "status").map((e) => e.manager);

/** A group of its own for each test: one test's CRD may still be going when the next installs its own. */
const groupOf = (test: string) => `${test}-${randomBytes(3).toString("hex")}.e2e.kubeloop.dev`;

/** The Bolt operator of the CLI tests (each Bolt gets a ConfigMap holding its length), on this checkout's sources. */
async function boltOperator(t: TestContext, group: string): Promise<Operator> {
  const dir = mkdtempSync(join(tmpdir(), "kubeloop-kit-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, "operator.mjs");
  writeFileSync(file, operatorModule(group, join(checkout, "src", "index.ts")));
  return (await import(pathToFileURL(file).href)).default as Operator;
}

test("startOperator installs the CRDs, runs the operator on the given cluster, and testNamespace cleans up", async (t) => {
  const admin = await testClient();
  const group = groupOf("kit");
  const operator = await boltOperator(t, group);
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
    const written = await admin.get(ConfigMap, "m8-length", { namespace });
    assert.deepEqual(
      managersOf(written),
      [operator.name],
      "it writes as the operator's name, as under `kubeloop run`, not as the admin client",
    );
    assert.equal(running.manager.client.fieldManager, operator.name);
    assert.notEqual(running.client.fieldManager, operator.name, "the admin client writes as someone else");
  });
  const ns = await admin.get(Namespace, namespace);
  assert.ok(ns.metadata.deletionTimestamp, "the test's namespace is being deleted once the test ended");
});

/** The names of the ValidatingWebhookConfigurations `startOperator` made for `operator`. */
async function testConfigurations(operator: string): Promise<string[]> {
  const list = await (await testClient()).list(ValidatingWebhookConfiguration);
  return list.items.map((c) => c.metadata.name ?? "").filter((name) => name.startsWith(`${operator}-test-`));
}

test("startOperator serves the operator's webhooks for this process's test namespaces only, and removes them on stop", async (t) => {
  const admin = await testClient();
  const group = groupOf("kit-webhooks");
  const bolts = await boltOperator(t, group);
  const [Bolt] = bolts.kinds;
  assert.ok(Bolt);
  const shortBolts = validating(Bolt, (bolt) =>
    (bolt.spec as { length: number }).length > 100
      ? Verdict.deny("too long", { causes: [{ field: "spec.length", message: "at most 100" }] })
      : undefined,
  );
  const operator = defineOperator({ ...bolts.definition, name: "short-bolts", webhooks: [shortBolts] });
  const running = await startOperator(operator, { kubeconfig: kubeconfigPath() });
  t.after(async () => {
    await running.stop();
    await admin.delete(CustomResourceDefinition, `bolts.${group}`).catch(() => undefined);
  });
  const bolt = (namespace: string, name: string, length: number) =>
    running.client.create(Bolt, {
      apiVersion: Bolt.apiVersion,
      kind: Bolt.kind,
      metadata: { name, namespace },
      spec: { length },
    });

  const namespace = await testNamespace(running.client, t);
  const refused = await bolt(namespace, "long", 500).catch((err: unknown) => err);
  assert.ok(refused instanceof InvalidError, String(refused));
  assert.match(refused.message, /denied the request: too long/);
  assert.deepEqual(
    refused.causes.map((c) => c.field),
    ["spec.length"],
  );
  await bolt(namespace, "short", 40);

  // A namespace of no test session (another process's, or made by hand): not this process's webhook's.
  const foreign = `no-session-${randomBytes(3).toString("hex")}`;
  await admin.create(Namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: foreign } });
  t.after(() => admin.delete(Namespace, foreign).catch(() => undefined));
  await bolt(foreign, "long", 500);

  assert.equal((await testConfigurations("short-bolts")).length, 1);
  await running.stop(); // the after hook's stop waits for this one
  assert.deepEqual(await testConfigurations("short-bolts"), []);
});

test("startOperator's stop() fails the test of an operator that used a kind it does not declare", async (t) => {
  const admin = await testClient();
  const namespace = await testNamespace(admin, t);
  let read = false;
  // A forgotten `.watches(Secret)`: the reconciler reads a Secret the operator never declares.
  const operator = defineOperator({
    name: "forgetful",
    kinds: [],
    watchNamespace: namespace,
    setup: (host) =>
      void controller(host)
        .for(ConfigMap)
        .reconcile(async (ctx) => {
          await ctx.client.get(Secret, "settings", { namespace }).catch(() => undefined);
          read = true;
        }),
  });
  const running = await startOperator(operator, { kubeconfig: kubeconfigPath() });
  // The namespace's kube-root-ca.crt ConfigMap is reconciled without anything created.
  await eventually(() => read, { what: "a reconcile reading the Secret" });
  await assert.rejects(
    running.stop(),
    (err: unknown) =>
      err instanceof UndeclaredKindsError &&
      err.kinds.includes("Secret (v1)") &&
      /forgetful/.test(err.message),
  );
});
