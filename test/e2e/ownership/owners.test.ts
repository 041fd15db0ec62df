import assert from "node:assert/strict";
import { type TestContext, test } from "node:test";
import { ConfigMap, type ConfigMapObject } from "../../../src/api/index.ts";
import { controller } from "../../../src/controller/index.ts";
import type { Manager } from "../../../src/manager/index.ts";
import { AlreadyOwnedError, controllerReference, ensureChild } from "../../../src/ownership/index.ts";
import { installWidgetCrd, Widget, type WidgetObject, widget } from "../fixtures/widgets.ts";
import { eventually, testClient, testNamespace } from "../support.ts";
import {
  conditionOf,
  configMapOrGone,
  eventsAbout,
  metric,
  setCondition,
  startManager,
  widgetOrGone,
} from "./support.ts";

const MANAGER = "owners-e2e";

function childOf(w: WidgetObject): ConfigMapObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: `${w.metadata.name}-child`, namespace: w.metadata.namespace },
    data: { message: w.spec.message },
  };
}

/**
 * A Widget controller that owns one ConfigMap through ensureChild and reports the outcome as the
 * `ChildReady` condition; a child controlled by someone else is refused (`AlreadyOwned`), as a
 * condition and a Warning event.
 */
function startOwnersOperator(t: TestContext, namespace: string): Promise<Manager> {
  return startManager(t, MANAGER, namespace, {}, (m) => {
    controller(m)
      .for(Widget)
      .owns(ConfigMap)
      .reconcile(async (ctx) => {
        const w = ctx.object;
        if (!w || w.metadata.deletionTimestamp) return undefined;
        try {
          await ensureChild(ctx, w, ConfigMap, childOf(w));
        } catch (err) {
          if (!(err instanceof AlreadyOwnedError)) throw err;
          ctx.recorder.warning(w, "AlreadyOwned", "Adopt", err.message);
          await setCondition(ctx.client, w, {
            type: "ChildReady",
            status: "False",
            reason: "AlreadyOwned",
            message: err.message,
          });
          return undefined;
        }
        await setCondition(ctx.client, w, {
          type: "ChildReady",
          status: "True",
          reason: "Applied",
          message: "",
        });
        return undefined;
      });
  });
}

test("ensureChild's controller reference lets GC remove the child with its owner; an owner created again gets a child without a drift report", async (t) => {
  await installWidgetCrd();
  const ns = await testNamespace(t);
  const client = await testClient();
  const manager = await startOwnersOperator(t, ns);
  const owner = await client.create(Widget, widget(ns, "parent", "hello"));

  const child = await eventually(() => configMapOrGone(client, ns, "parent-child"), { what: "the child" });
  assert.deepEqual(child.metadata.ownerReferences, [
    {
      apiVersion: "e2e.kubeloop.dev/v1",
      kind: "Widget",
      name: "parent",
      uid: owner.metadata.uid,
      controller: true,
      blockOwnerDeletion: true,
    },
  ]);
  await eventually(
    async () => conditionOf(await widgetOrGone(client, ns, "parent"), "ChildReady")?.status === "True",
    {
      what: "ChildReady=True",
    },
  );

  await client.delete(Widget, "parent", { namespace: ns });
  await eventually(async () => (await configMapOrGone(client, ns, "parent-child")) === undefined, {
    what: "garbage collection of the child",
    timeoutMs: 120_000,
    intervalMs: 1000,
  });

  // The same name again: a new owner (new uid) whose child is created, not "repaired".
  const again = await client.create(Widget, widget(ns, "parent", "hello again"));
  const fresh = await eventually(
    async () => {
      const cm = await configMapOrGone(client, ns, "parent-child");
      return cm?.data?.message === "hello again" && cm;
    },
    { what: "the new owner's child" },
  );
  assert.equal(fresh.metadata.ownerReferences?.[0]?.uid, again.metadata.uid);
  await eventually(
    async () => conditionOf(await widgetOrGone(client, ns, "parent"), "ChildReady")?.status === "True",
    {
      what: "ChildReady=True for the new owner",
    },
  );
  await manager.recorder.flush(AbortSignal.timeout(10_000));
  assert.equal(await metric(manager, "kubeloop_drift_repairs_total", {}), 0, "no drift counted");
  assert.deepEqual(await eventsAbout(client, ns, "parent", "DriftRepaired"), []);
});

test("a child controlled by another object is not adopted: it stays untouched and the owner reports AlreadyOwned", async (t) => {
  await installWidgetCrd();
  const ns = await testNamespace(t);
  const client = await testClient();
  await startOwnersOperator(t, ns);
  const other = await client.create(Widget, widget(ns, "other", "theirs"));
  await eventually(() => configMapOrGone(client, ns, "other-child"), {
    what: "the other widget's own child",
  });
  const squatter = await client.create(ConfigMap, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "target-child", namespace: ns, ownerReferences: [controllerReference(other)] },
    data: { message: "not yours" },
  });

  await client.create(Widget, widget(ns, "target", "mine"));

  const condition = await eventually(
    async () => {
      const c = conditionOf(await widgetOrGone(client, ns, "target"), "ChildReady");
      return c?.reason === "AlreadyOwned" && c;
    },
    { what: "ChildReady=False AlreadyOwned on the owner" },
  );
  assert.equal(condition.status, "False");
  assert.match(condition.message, /ConfigMap .*target-child is already controlled by Widget other/);
  const [event] = await eventually(
    async () => {
      const found = await eventsAbout(client, ns, "target", "AlreadyOwned");
      return found.length > 0 && found;
    },
    { what: "an AlreadyOwned event" },
  );
  assert.equal(event?.type, "Warning");

  const after = await client.get(ConfigMap, "target-child", { namespace: ns });
  assert.equal(after.metadata.resourceVersion, squatter.metadata.resourceVersion, "not written at all");
  assert.deepEqual(after.data, { message: "not yours" });
  assert.deepEqual(after.metadata.ownerReferences, [controllerReference(other)]);
  assert.ok(!after.metadata.managedFields?.some((e) => e.manager === MANAGER));
});
