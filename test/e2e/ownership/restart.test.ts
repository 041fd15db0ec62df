import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import { fileURLToPath } from "node:url";
import { ConfigMap } from "../../../src/api/index.ts";
import { installWidgetCrd, Widget, widget } from "../fixtures/widgets.ts";
import { eventually, testClient, testNamespace } from "../support.ts";
import { configMapOrGone, FINALIZER, releaseWidgetsAfter, widgetOrGone } from "./support.ts";

const script = join(fileURLToPath(import.meta.url), "../fixtures/slow-cleanup-operator.ts");

interface OperatorProcess {
  pid: number;
  kill(): Promise<void>;
}

/** Starts the slow-cleanup operator as its own process; resolves once it says `ready`. Killed when the test ends. */
async function startOperator(
  t: TestContext,
  namespace: string,
  externalNs: string,
): Promise<OperatorProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", script, namespace, externalNs], {
    stdio: ["ignore", "pipe", "inherit"],
    env: process.env,
  });
  let output = "";
  child.stdout.on("data", (d: Buffer) => {
    output += d;
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  };
  t.after(kill);
  await eventually(() => output.includes("ready\n") || child.exitCode !== null, {
    what: "the operator process to be ready",
    timeoutMs: 60_000,
  });
  assert.equal(child.exitCode, null, "the operator process is running");
  return { pid: child.pid as number, kill };
}

test("a finalizer holds deletion until cleanup ran, also when the operator is killed in the middle of cleanup", async (t) => {
  await installWidgetCrd();
  const ns = await testNamespace(t);
  const externalNs = await testNamespace(t);
  releaseWidgetsAfter(t, ns);
  const client = await testClient();
  const externalOf = (name: string) => configMapOrGone(client, externalNs, `${ns}.${name}`);
  const startedBy = async () =>
    Object.keys((await configMapOrGone(client, ns, "cleanup-started-guarded"))?.data ?? {}).sort();

  const first = await startOperator(t, ns, externalNs);
  await client.create(Widget, widget(ns, "guarded", "delete me"));
  await client.create(Widget, widget(ns, "bystander", "keep me"));
  await eventually(async () => (await externalOf("guarded")) && (await externalOf("bystander")), {
    what: "both external resources",
  });
  assert.deepEqual((await client.get(Widget, "guarded", { namespace: ns })).metadata.finalizers, [FINALIZER]);

  await client.delete(Widget, "guarded", { namespace: ns });
  await eventually(async () => (await startedBy()).includes(`pid-${first.pid}`), {
    what: "cleanup started in the first operator",
  });
  await first.kill();

  const held = await client.get(Widget, "guarded", { namespace: ns });
  assert.ok(held.metadata.deletionTimestamp, "deletion was requested");
  assert.deepEqual(held.metadata.finalizers, [FINALIZER], "the finalizer holds the object");
  assert.ok(await externalOf("guarded"), "cleanup did not finish");

  const second = await startOperator(t, ns, externalNs);
  await eventually(async () => (await startedBy()).includes(`pid-${second.pid}`), {
    what: "cleanup started again in the new operator",
  });
  assert.ok(await widgetOrGone(client, ns, "guarded"), "still held while cleanup runs");

  await client.create(ConfigMap, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cleanup-proceed-guarded", namespace: ns },
  });
  await eventually(async () => (await widgetOrGone(client, ns, "guarded")) === undefined, {
    what: "the widget deleted once cleanup finished",
  });

  assert.equal(await externalOf("guarded"), undefined, "the external resource was cleaned up");
  const { items } = await client.list(ConfigMap, { namespace: externalNs });
  assert.deepEqual(
    items.map((cm) => cm.metadata.name).filter((n) => n !== "kube-root-ca.crt"),
    [`${ns}.bystander`],
    "only the bystander's external resource is left",
  );
  const bystander = await client.get(Widget, "bystander", { namespace: ns });
  assert.equal(bystander.metadata.deletionTimestamp, undefined);
  assert.deepEqual(bystander.metadata.finalizers, [FINALIZER]);
  assert.deepEqual(
    await startedBy(),
    [`pid-${first.pid}`, `pid-${second.pid}`].sort(),
    "cleanup started twice",
  );
});
