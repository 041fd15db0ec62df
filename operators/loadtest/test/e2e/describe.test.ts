/**
 * `kubeloop describe` of a completed LoadTest: its Job and the worker Pods below it, the workers'
 * ServiceAccount, its script
 * ConfigMap left out (the LoadTest reads it, does not own it), the condition timeline and the
 * events of the whole tree.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  assertSnapshot,
  kubeloopDescribe,
  settledDescription,
  treeOf,
} from "../../../../test/e2e/describe/support.ts";
import { createLoadTest, kubectlWaitCompleted, startOperator } from "./harness.ts";

test("a completed LoadTest: its Job and worker Pods, Completed on the timeline, the tree's events", async (t) => {
  const { namespace } = await startOperator(t);
  await createLoadTest(namespace, "shop", { count: 2 });
  const waited = await kubectlWaitCompleted(namespace, "shop");
  assert.equal(waited.code, 0, waited.stderr);

  const description = await settledDescription(
    "loadtest/shop",
    namespace,
    (d) =>
      treeOf(d).filter((o) => o.kind === "Pod").length === 2 &&
      d.events.some((e) => e.regarding.kind === "Job" && e.reason === "Completed"),
    "the Job completed, its pods listed",
  );
  assert.deepEqual(
    treeOf(description).map((o) => o.kind),
    ["LoadTest", "Job", "ServiceAccount", "Pod", "Pod"],
  );
  assert.ok(
    description.timeline.some((e) => e.condition === "Completed" && e.status === "True" && e.current),
  );

  const { code, stdout } = await kubeloopDescribe(["loadtests/shop", "-n", namespace]);
  assert.equal(code, 0);
  assertSnapshot("loadtest", stdout, namespace, "LoadTest/shop");
});
