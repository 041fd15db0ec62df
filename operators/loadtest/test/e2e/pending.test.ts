/**
 * Issue 37: a worker whose pod is Pending has not started. The Job counts it as `active`, but the
 * LoadTest says it is not running: `WorkersStarting`, "0 running, 2 not started".
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Pod } from "kubeloop";
import {
  conditionOf,
  createLoadTest,
  eventually,
  startOperator,
  testClient,
  waitForLoadTest,
} from "./harness.ts";

test("issue 37: workers no node fits are Pending, so not started: WorkersStarting, 0 running, 2 not started", async (t) => {
  const { namespace } = await startOperator(t);
  // Each kwok node of the test cluster has 32 CPUs: no node fits a worker asking for 64.
  await createLoadTest(namespace, "unschedulable", { count: 2, resources: { requests: { cpu: "64" } } });
  const client = await testClient();
  await eventually(
    async () => {
      const { items } = await client.list(Pod, {
        namespace,
        labelSelector: "artillery.io/test-name=unschedulable",
      });
      const unschedulable = items.filter((p) =>
        p.status?.conditions?.some((c) => c.type === "PodScheduled" && c.reason === "Unschedulable"),
      );
      return unschedulable.length === 2;
    },
    { what: "both worker pods Pending, unschedulable" },
  );

  const pending = await waitForLoadTest(
    namespace,
    "unschedulable",
    (o) => o.status?.active === 2,
    "both workers active in the Job",
  );
  const progressing = conditionOf(pending, "Progressing");
  assert.deepEqual([progressing?.status, progressing?.reason], ["True", "WorkersStarting"]);
  assert.equal(progressing?.message, "0/2 workers succeeded, 0 running, 2 not started");
  assert.equal(conditionOf(pending, "Succeeded")?.reason, "WorkersStarting");
  assert.equal(pending.status?.completions, "0/2");
});
