import assert from "node:assert/strict";
import { test } from "node:test";
import { Event, type EventObject } from "../../../src/api/index.ts";
import type { Client } from "../../../src/client/index.ts";
import { findCondition } from "../../../src/status/index.ts";
import { eventually, kubectl, managerMetric, testClient, testNamespace } from "../support.ts";
import { Gizmo, GizmoConditions, type GizmoObject, gizmo, gizmoResource, installGizmoCrd } from "./gizmo.ts";
import { FIELD_MANAGER } from "./gizmo-controller.ts";
import { observedCurrent, settledReady, startGizmoManager } from "./harness.ts";

type Seen = [type: string | undefined, reason: string | undefined, note: string | undefined];

/** The Events about gizmo `name` as [type, reason, note], once they include every one of `expected`. */
async function eventsIncluding(client: Client, namespace: string, name: string, expected: Seen[]) {
  return eventually(
    async () => {
      const { items } = await client.list(Event, { namespace });
      const seen = items.filter((e) => aboutGizmo(e, name)).map((e): Seen => [e.type, e.reason, e.note]);
      const missing = expected.filter(
        (want) => !seen.some((s) => JSON.stringify(s) === JSON.stringify(want)),
      );
      return missing.length === 0 ? seen : undefined;
    },
    { what: `events about ${name}: ${JSON.stringify(expected)}` },
  );
}

function aboutGizmo(event: EventObject, name: string): boolean {
  const { regarding } = event;
  return (
    regarding?.kind === "Gizmo" && regarding.name === name && event.reportingController === FIELD_MANAGER
  );
}

/** Status holds the current observation only: one entry per condition type, no history fields. */
function assertNoHistory(obj: GizmoObject): void {
  const types = (obj.status?.conditions ?? []).map((c) => c.type);
  assert.equal(new Set(types).size, types.length, "one condition per type");
  assert.ok(types.every((type) => GizmoConditions.types.includes(type)));
  assert.deepEqual(Object.keys(obj.status ?? {}).sort(), [
    "conditions",
    "configMap",
    "observedGeneration",
    "replicas",
  ]);
}

test("condition transitions go out as events and metrics, not as status history", async (t) => {
  await installGizmoCrd();
  const ns = await testNamespace(t);
  const client = await testClient();
  const harness = await startGizmoManager(t, ns);
  await client.create(Gizmo, gizmo(ns, "g", { replicas: 1, message: "hi" }));
  assertNoHistory(await settledReady(harness, ns, "g"));
  const created = await eventsIncluding(client, ns, "g", [
    [
      "Normal",
      "ConfigMapCreating",
      "Ready: Absent → Unknown (ConfigMapCreating): creating ConfigMap g-config",
    ],
    ["Normal", "AllConditionsNormal", "Ready: Unknown → True (AllConditionsNormal)"],
  ]);
  assert.ok(
    !created.some(([, , note]) => note?.startsWith("ConfigMapReady")),
    "a dependent's transition that moved Ready is told once, by Ready's event",
  );

  await client.patch(Gizmo, "g", { spec: { replicas: 0 } }, { type: "merge", namespace: ns });
  const degraded = await eventually(
    async () => {
      const obj = await client.get(Gizmo, "g", { namespace: ns });
      return observedCurrent(obj) &&
        findCondition(obj.status?.conditions ?? [], "Degraded")?.status === "True"
        ? obj
        : undefined;
    },
    { what: "Degraded=True for generation 2" },
  );
  assertNoHistory(degraded);
  const seen = await eventsIncluding(client, ns, "g", [
    ["Warning", "ScaledToZero", "Ready: True → False (ScaledToZero): spec.replicas is 0"],
  ]);
  assert.deepEqual(
    seen.filter(([, reason]) => reason === "ScaledToZero").length,
    1,
    "one ScaledToZero event: Ready's, not Degraded's besides",
  );
  assert.ok(!seen.some(([, , note]) => note?.startsWith("Reconciling")), "Reconciling is not reported");
  const transitions = (labels: Record<string, string>) =>
    managerMetric(harness.manager, "kubeloop_condition_transitions_total", { kind: "Gizmo", ...labels });
  assert.equal(await transitions({ condition: "Ready", status: "False" }), 1, "Ready went False once");
  assert.equal(await transitions({ condition: "Degraded", status: "True" }), 1, "Degraded went True once");
  assert.ok((await transitions({ condition: "Ready", status: "True" })) >= 1, "Ready went True");
  assert.equal(await transitions({ condition: "Reconciling" }), 0, "Reconciling is not counted");

  const shown = await kubectl(["events", "--for", gizmoResource("g"), "-n", ns]);
  assert.match(shown.stdout, /Warning\s+ScaledToZero\s+gizmo\/g\s+Ready: True → False/i);
});
