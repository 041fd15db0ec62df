import assert from "node:assert/strict";
import { test } from "node:test";
import { kstatus } from "../../../src/status/index.ts";
import { eventually, kubectl, testClient, testNamespace } from "../support.ts";
import { Gizmo, type GizmoObject, gizmo, installGizmoCrd } from "./gizmo.ts";
import { observedCurrent, settledReady, startGizmoManager } from "./harness.ts";

/** The status without `lastTransitionTime`, the one field a rebuilt status may not reproduce. */
function withoutTransitionTimes(status: GizmoObject["status"]): unknown {
  const conditions = (status?.conditions ?? []).map(({ lastTransitionTime: _, ...rest }) => rest);
  return { ...status, conditions };
}

test("a settled object reconciled again and again sends no status write", async (t) => {
  await installGizmoCrd();
  const ns = await testNamespace(t);
  const client = await testClient();
  const harness = await startGizmoManager(t, ns);
  await client.create(Gizmo, gizmo(ns, "g", { replicas: 2, message: "steady" }));
  const before = await settledReady(harness, ns, "g");
  const key = `${ns}/g`;
  const writesBefore = harness.requests.writes;
  const resultsBefore = harness.probe.writes(key).length;

  for (let i = 1; i <= 5; i++) {
    harness.controller.enqueue(key, "test");
    await eventually(() => harness.probe.writes(key).length >= resultsBefore + i, {
      what: `forced reconcile ${i} done`,
    });
  }

  assert.deepEqual(harness.probe.writes(key).slice(resultsBefore), Array(5).fill("unchanged"));
  assert.equal(harness.requests.writes - writesBefore, 0, "no write request of any kind");
  const after = await client.get(Gizmo, "g", { namespace: ns });
  assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion);
});

test("a wiped status is written back the same, lastTransitionTime excepted", async (t) => {
  await installGizmoCrd();
  const ns = await testNamespace(t);
  const client = await testClient();
  const harness = await startGizmoManager(t, ns);
  await client.create(Gizmo, gizmo(ns, "g", { replicas: 4, message: "keep me" }));
  const before = await settledReady(harness, ns, "g");
  assert.equal(kstatus(before).status, "Current");

  const wipe = [
    "patch",
    "gizmo",
    "g",
    "-n",
    ns,
    "--subresource=status",
    "--type=merge",
    "-p",
    '{"status":null}',
  ];
  const wiped = JSON.parse((await kubectl([...wipe, "-o", "json"])).stdout) as GizmoObject;
  assert.equal(wiped.status, undefined, "the status is gone");

  // lastTransitionTime is when the controller observed the status, so a rebuilt condition carries
  // the time of the rebuild; every other field is derived from observation and comes back the same.
  const rebuilt = await eventually(
    async () => {
      const obj = await client.get(Gizmo, "g", { namespace: ns });
      return obj.status && observedCurrent(obj) ? obj : undefined;
    },
    { what: "status written back", timeoutMs: 60_000 },
  );
  assert.deepEqual(withoutTransitionTimes(rebuilt.status), withoutTransitionTimes(before.status));
  assert.equal(rebuilt.metadata.generation, before.metadata.generation, "status writes keep the generation");
  assert.notEqual(rebuilt.metadata.resourceVersion, wiped.metadata.resourceVersion);
  assert.deepEqual(kstatus(rebuilt), kstatus(before));
  assert.equal(kstatus(rebuilt).status, "Current");
});
