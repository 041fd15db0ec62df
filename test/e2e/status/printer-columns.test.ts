import assert from "node:assert/strict";
import { test } from "node:test";
import { findCondition } from "../../../src/status/index.ts";
import { eventually, kubectl, testClient, testNamespace } from "../support.ts";
import { Gizmo, gizmo, installGizmoCrd } from "./gizmo.ts";
import { observedCurrent, startGizmoManager } from "./harness.ts";

/** `kubectl get` output as rows of cells, the header first. */
function table(stdout: string): string[][] {
  return stdout
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/));
}

test("kubectl get gizmos shows the Ready and Reason columns of the summary condition", async (t) => {
  await installGizmoCrd();
  const ns = await testNamespace(t);
  const client = await testClient();
  await startGizmoManager(t, ns);
  await client.create(Gizmo, gizmo(ns, "running", { replicas: 3, message: "up" }));
  await client.create(Gizmo, gizmo(ns, "stopped", { replicas: 0, message: "down" }));
  const expected = [
    ["running", "True"],
    ["stopped", "False"],
  ] as const;
  for (const [name, status] of expected) {
    await eventually(
      async () => {
        const obj = await client.get(Gizmo, name, { namespace: ns });
        const ready = findCondition(obj.status?.conditions ?? [], "Ready");
        return observedCurrent(obj) && ready?.status === status && obj.status?.replicas !== undefined;
      },
      { what: `${name} Ready=${status}`, timeoutMs: 60_000 },
    );
  }

  const rows = table((await kubectl(["get", "gizmos", "-n", ns])).stdout);
  assert.deepEqual(rows[0], ["NAME", "READY", "REASON", "REPLICAS", "AGE"]);
  const cells = new Map(rows.slice(1).map((row) => [row[0], row.slice(1, 4)]));
  assert.deepEqual(cells.get("running"), ["True", "AllConditionsNormal", "3"]);
  assert.deepEqual(cells.get("stopped"), ["False", "ScaledToZero", "0"]);
  assert.equal(cells.size, 2);
});
