import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { type TestContext, test } from "node:test";
import { promisify } from "node:util";
import { ConfigMap, type ConfigMapObject } from "../../../src/api/index.ts";
import { controller, type HostedController } from "../../../src/controller/index.ts";
import type { Manager } from "../../../src/manager/index.ts";
import { type EnsureResult, ensureChild } from "../../../src/ownership/index.ts";
import { installWidgetCrd, Widget, type WidgetObject, widget } from "../fixtures/widgets.ts";
import { binary, eventually, kubeconfigPath, kubectl, testClient, testNamespace } from "../support.ts";
import { configMapOrGone, eventsAbout, metric, startManager, writesSent } from "./support.ts";

const MANAGER = "drift-e2e";

/** The ConfigMap each Widget owns: its data mirrors `spec.message`. */
function childOf(w: WidgetObject): ConfigMapObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: `${w.metadata.name}-child`, namespace: w.metadata.namespace },
    data: { message: w.spec.message },
  };
}

interface DriftOperator {
  manager: Manager;
  widgets: HostedController;
  /** What each reconcile's ensureChild answered, in order. */
  results: { key: string; result: EnsureResult }[];
}

/** A Widget controller whose whole job is `ensureChild` for one owned ConfigMap. */
async function startDriftOperator(t: TestContext, namespace: string): Promise<DriftOperator> {
  const results: DriftOperator["results"] = [];
  const manager = await startManager(t, MANAGER, namespace, {}, (m) => {
    controller(m)
      .for(Widget)
      .owns(ConfigMap)
      .reconcile(async (ctx) => {
        if (!ctx.object) return undefined;
        results.push({
          key: ctx.request.key,
          result: await ensureChild(ctx, ctx.object, ConfigMap, childOf(ctx.object)),
        });
        return undefined;
      });
  });
  const [widgets] = manager.controllers;
  assert.ok(widgets, "the manager hosts the Widget controller");
  return { manager, widgets, results };
}

const drifts = (op: DriftOperator, manager: string) =>
  metric(op.manager, "kubeloop_drift_repairs_total", { kind: "ConfigMap", manager });

async function childMessage(namespace: string, name: string): Promise<string | undefined> {
  return (await configMapOrGone(await testClient(), namespace, `${name}-child`))?.data?.message;
}

async function createWidget(namespace: string, name: string, message: string): Promise<WidgetObject> {
  const client = await testClient();
  const created = await client.create(Widget, widget(namespace, name, message));
  await eventually(async () => (await childMessage(namespace, name)) === message, {
    what: `${name}'s child`,
  });
  return created;
}

const runKubectlEdit = promisify(execFile);

test("a kubectl patch of an owned child is reverted, and reported as an event and a metric naming the field manager", async (t) => {
  await installWidgetCrd();
  const ns = await testNamespace(t);
  const client = await testClient();
  const op = await startDriftOperator(t, ns);
  await createWidget(ns, "tampered", "original");
  assert.equal(await drifts(op, "tamperer"), 0);

  await kubectl([
    "-n",
    ns,
    "patch",
    "configmap",
    "tampered-child",
    "--type=merge",
    "-p",
    JSON.stringify({ data: { message: "tampered" } }),
    "--field-manager=tamperer",
  ]);

  await eventually(async () => (await childMessage(ns, "tampered")) === "original", {
    what: "the tampered child restored",
    timeoutMs: 10_000,
  });
  await eventually(async () => (await drifts(op, "tamperer")) === 1, {
    what: "kubeloop_drift_repairs_total for tamperer",
  });
  assert.equal(
    await metric(op.manager, "drift_repairs_total", { kind: "ConfigMap", manager: "tamperer" }),
    1,
    "the deprecated unprefixed name counts along until it is removed",
  );
  const [event] = await eventually(
    async () => {
      const found = await eventsAbout(client, ns, "tampered", "DriftRepaired");
      return found.length > 0 && found;
    },
    { what: "a DriftRepaired event on the owner" },
  );
  assert.equal(event?.type, "Warning");
  assert.equal(event?.regarding?.kind, "Widget");
  assert.equal(event?.related?.kind, "ConfigMap");
  assert.equal(event?.related?.name, "tampered-child");
  assert.equal(event?.reportingController, MANAGER);
  assert.match(
    event?.note ?? "",
    /^ConfigMap tampered-child was modified by tamperer \(Update at [0-9TZ:-]+\); restored it$/,
  );
  assert.equal(await drifts(op, MANAGER), 0, "the controller's own writes are never counted as drift");
});

test("kubectl edit and a foreign server-side apply are each attributed to their manager and operation", async (t) => {
  await installWidgetCrd();
  const ns = await testNamespace(t);
  const client = await testClient();
  const op = await startDriftOperator(t, ns);
  await createWidget(ns, "edited", "original");

  // kubectl edit, non-interactively: the "editor" rewrites the file in place.
  await runKubectlEdit(
    binary("kubectl"),
    [`--kubeconfig=${kubeconfigPath()}`, "-n", ns, "edit", "configmap/edited-child"],
    {
      env: { ...process.env, KUBE_EDITOR: "sed -i s/original/edited-by-hand/" },
    },
  );
  await eventually(async () => (await drifts(op, "kubectl-edit")) === 1, { what: "drift by kubectl-edit" });
  assert.equal(await childMessage(ns, "edited"), "original");

  await kubectl(["apply", "--server-side", "--force-conflicts", "--field-manager=gitops-bot", "-f", "-"], {
    input: JSON.stringify({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "edited-child", namespace: ns },
      data: { message: "from git" },
    }),
  });
  await eventually(async () => (await drifts(op, "gitops-bot")) === 1, { what: "drift by gitops-bot" });
  assert.equal(await childMessage(ns, "edited"), "original");

  const notes = await eventually(
    async () => {
      const found = (await eventsAbout(client, ns, "edited", "DriftRepaired")).map((e) => e.note ?? "");
      return found.length === 2 && found;
    },
    { what: "two DriftRepaired events" },
  );
  assert.ok(
    notes.some((n) => /modified by kubectl-edit \(Update at /.test(n)),
    notes.join("\n"),
  );
  assert.ok(
    notes.some((n) => /modified by gitops-bot \(Apply at /.test(n)),
    notes.join("\n"),
  );
});

test("a deleted owned child is recreated and reported; as manager unknown, or as its last foreign writer", async (t) => {
  await installWidgetCrd();
  const ns = await testNamespace(t);
  const client = await testClient();
  const op = await startDriftOperator(t, ns);
  await createWidget(ns, "plain", "keep me");
  await createWidget(ns, "labelled", "keep me too");

  const before = await client.get(ConfigMap, "plain-child", { namespace: ns });
  await kubectl(["-n", ns, "delete", "configmap", "plain-child"]);
  const recreated = await eventually(
    async () => {
      const cm = await configMapOrGone(client, ns, "plain-child");
      return cm && cm.metadata.uid !== before.metadata.uid && cm;
    },
    { what: "the deleted child recreated", timeoutMs: 10_000 },
  );
  assert.equal(recreated.data?.message, "keep me");
  await eventually(async () => (await drifts(op, "unknown")) === 1, { what: "a deletion by unknown" });
  const [deleted] = await eventually(
    async () => {
      const found = await eventsAbout(client, ns, "plain", "DriftRepaired");
      return found.length > 0 && found;
    },
    { what: "DriftRepaired for the deletion" },
  );
  assert.equal(
    deleted?.note,
    "ConfigMap plain-child was deleted (deleted by someone other than this controller); restored it",
  );

  // A label that is not desired is no drift, but the labeler stays the child's last foreign writer.
  await kubectl(["-n", ns, "label", "configmap", "labelled-child", "team=ops", "--field-manager=labeler"]);
  await eventually(
    async () => (await client.get(ConfigMap, "labelled-child", { namespace: ns })).metadata.labels?.team,
    {
      what: "the label",
    },
  );
  await kubectl(["-n", ns, "delete", "configmap", "labelled-child"]);
  await eventually(async () => (await drifts(op, "labeler")) === 1, {
    what: "a deletion attributed to labeler",
  });
  assert.equal(await childMessage(ns, "labelled"), "keep me too");
  assert.equal(await drifts(op, "unknown"), 1);
});

test("a change of the owner's spec updates the child without being reported as drift", async (t) => {
  await installWidgetCrd();
  const ns = await testNamespace(t);
  const client = await testClient();
  const op = await startDriftOperator(t, ns);
  await createWidget(ns, "evolving", "v1");

  // First a real tamper and its repair, so the child carries history from another manager.
  await kubectl([
    "-n",
    ns,
    "patch",
    "configmap",
    "evolving-child",
    "--type=merge",
    "-p",
    '{"data":{"message":"x"}}',
  ]);
  await eventually(async () => (await drifts(op, "kubectl-patch")) === 1, { what: "the tamper repaired" });
  // Then a harmless change by another tool (a label the controller does not manage): no drift,
  // but a foreign writer more recent than the controller's own last write.
  await kubectl(["-n", ns, "label", "configmap", "evolving-child", "team=ops", "--field-manager=labeler"]);
  await eventually(
    async () => (await client.get(ConfigMap, "evolving-child", { namespace: ns })).metadata.labels,
    {
      what: "the label",
    },
  );

  for (const message of ["v2", "v3"]) {
    const updates = op.results.filter((r) => r.result === "updated").length;
    await client.patch(Widget, "evolving", { spec: { message } }, { type: "merge", namespace: ns });
    await eventually(async () => (await childMessage(ns, "evolving")) === message, {
      what: `child at ${message}`,
    });
    await eventually(() => op.results.filter((r) => r.result === "updated").length === updates + 1, {
      what: "the reconcile that updated the child to finish",
    });
  }
  await op.manager.recorder.flush(AbortSignal.timeout(10_000));
  const total = await metric(op.manager, "kubeloop_drift_repairs_total", { kind: "ConfigMap" });
  assert.equal(total, 1, "only the tamper counts as drift");
  const events = await eventsAbout(client, ns, "evolving", "DriftRepaired");
  assert.equal(events.length, 1);
  assert.match(events[0]?.note ?? "", /modified by kubectl-patch/);
});

test("a settled child causes no write on further reconciles", async (t) => {
  await installWidgetCrd();
  const ns = await testNamespace(t);
  const client = await testClient();
  const op = await startDriftOperator(t, ns);
  await createWidget(ns, "settled", "still");
  const key = `${ns}/settled`;
  // The child's own creation event brings a reconcile that finds it settled; measure after that.
  await eventually(() => op.results.some((r) => r.key === key && r.result === "unchanged"), {
    what: "a reconcile finding the child settled",
  });
  const child = await client.get(ConfigMap, "settled-child", { namespace: ns });
  const writes = await writesSent(op.manager);

  for (let i = 0; i < 5; i++) {
    const seen = op.results.length;
    op.widgets.enqueue(key, "test");
    await eventually(() => op.results.length > seen, { what: `reconcile ${i + 1}` });
  }

  assert.deepEqual(
    op.results.slice(-5).map((r) => r.result),
    ["unchanged", "unchanged", "unchanged", "unchanged", "unchanged"],
  );
  assert.equal(await writesSent(op.manager), writes, "no POST, PUT, PATCH or DELETE was sent");
  const after = await client.get(ConfigMap, "settled-child", { namespace: ns });
  assert.equal(after.metadata.resourceVersion, child.metadata.resourceVersion);
});

test("another owner's reference added to a child is neither reverted nor reported, and causes no write", async (t) => {
  await installWidgetCrd();
  const ns = await testNamespace(t);
  const client = await testClient();
  const op = await startDriftOperator(t, ns);
  await createWidget(ns, "shared", "hello");
  const bundle = await client.create(ConfigMap, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "bundle", namespace: ns },
  });
  const extra = { apiVersion: "v1", kind: "ConfigMap", name: "bundle", uid: bundle.metadata.uid as string };
  await kubectl([
    "-n",
    ns,
    "patch",
    "configmap",
    "shared-child",
    "--type=json",
    "--field-manager=bundler",
    "-p",
    JSON.stringify([{ op: "add", path: "/metadata/ownerReferences/-", value: extra }]),
  ]);
  const key = `${ns}/shared`;
  const cached = op.manager.cache.informer(ConfigMap).store;
  await eventually(() => cached.get(`${ns}/shared-child`)?.metadata.ownerReferences?.length === 2, {
    what: "the patched child in the operator's cache",
  });
  const seen = op.results.length;
  const writes = await writesSent(op.manager);
  for (let i = 0; i < 3; i++) {
    const before = op.results.length;
    op.widgets.enqueue(key, "test");
    await eventually(() => op.results.length > before, { what: `reconcile ${i + 1}` });
  }

  assert.deepEqual(
    op.results.slice(seen).map((r) => r.result),
    op.results.slice(seen).map(() => "unchanged"),
  );
  assert.equal(await writesSent(op.manager), writes);
  assert.equal(await metric(op.manager, "kubeloop_drift_repairs_total", {}), 0);
  const child = await client.get(ConfigMap, "shared-child", { namespace: ns });
  assert.deepEqual(
    child.metadata.ownerReferences?.map((r) => r.name),
    ["shared", "bundle"],
    "both references stay",
  );
});
