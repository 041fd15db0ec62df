/**
 * Status is observed, not remembered: a wiped status comes back the same, a settled LoadTest
 * reconciled again writes nothing, and events are not repeated.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { kstatus } from "kubeloop";
import { LoadTest, type LoadTestObject } from "../../api.ts";
import {
  conditionOf,
  createLoadTest,
  eventually,
  type Harness,
  idle,
  kubectl,
  kubectlWaitCompleted,
  operatorEvents,
  startOperator,
  testClient,
  waitForLoadTest,
} from "./harness.ts";

/** The status without `lastTransitionTime`. */
function withoutTransitionTimes(status: LoadTestObject["status"]): unknown {
  const conditions = (status?.conditions ?? []).map(({ lastTransitionTime: _, ...rest }) => rest);
  return { ...status, conditions };
}

/** Runs a LoadTest to completion and waits until the operator is idle with the latest copy cached. */
async function settled(
  h: Harness,
  name: string,
  spec: Record<string, unknown> = {},
): Promise<LoadTestObject> {
  await createLoadTest(h.namespace, name, spec);
  assert.equal((await kubectlWaitCompleted(h.namespace, name)).code, 0);
  return idle(h, name);
}

test("a wiped status is rebuilt identically (lastTransitionTime excepted)", async (t) => {
  const h = await startOperator(t);
  for (const [name, spec] of [
    ["ok", {}],
    ["flaky", { podAnnotations: { "kubeloop.dev/fail-exit-code": "1", "kubeloop.dev/fail-indexes": "0,2" } }],
  ] as const) {
    const before = await settled(h, name, spec);
    const wipe = ["patch", "loadtest", name, "-n", h.namespace, "--subresource=status", "--type=merge"];
    const wiped = JSON.parse((await kubectl([...wipe, "-p", '{"status":null}', "-o", "json"])).stdout);
    assert.equal(wiped.status, undefined, "the status is gone");
    const rebuilt = await waitForLoadTest(
      h.namespace,
      name,
      (o) => conditionOf(o, "Completed")?.status === "True",
      `${name} rebuilt`,
    );
    assert.deepEqual(withoutTransitionTimes(rebuilt.status), withoutTransitionTimes(before.status));
    assert.equal(
      conditionOf(rebuilt, "Completed")?.lastTransitionTime,
      conditionOf(before, "Completed")?.lastTransitionTime,
      "Completed is dated by the Job's completion, so even its time comes back",
    );
    assert.deepEqual(kstatus(rebuilt), kstatus(before));
  }
});

test("bug 1.7.4 and 1.7.9: a settled LoadTest reconciled again writes nothing; events are not repeated", async (t) => {
  const h = await startOperator(t);
  const before = await settled(h, "steady");
  const key = `${h.namespace}/steady`;
  const controller = h.manager.controllers[0];
  assert.ok(controller);
  const writes = h.requests.writes;
  const reconciles = await h.reconciles();
  for (let i = 1; i <= 5; i++) {
    controller.enqueue(key, "test");
    await eventually(async () => (await h.reconciles()) >= reconciles + i, { what: `forced reconcile ${i}` });
  }
  assert.equal(h.requests.writes - writes, 0, "no write of any kind");
  const after = await (await testClient()).get(LoadTest, "steady", { namespace: h.namespace });
  assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion);

  const events = await operatorEvents(h.namespace, "steady", ["Created", "Succeeded"]);
  const byReason = new Map<string, number>(); // occurrences, a series counting its repeats
  for (const e of events)
    byReason.set(e.reason ?? "", (byReason.get(e.reason ?? "") ?? 0) + (e.series?.count ?? 1));
  assert.equal(byReason.get("Created"), 1, "one Created event");
  assert.equal(byReason.get("Succeeded"), 1, "one Succeeded event");
});
