/**
 * The test-script ConfigMap: checked and watched. A missing script is a condition, not an error
 * loop, and creating (or fixing) the ConfigMap later starts the test.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigMap, Job, kstatus, NotFoundError } from "kubeloop";
import { LoadTest } from "../../api.ts";
import {
  conditionOf,
  createLoadTest,
  idle,
  kubectlWaitCompleted,
  operatorEvents,
  scriptConfigMap,
  startOperator,
  staysFor,
  testClient,
  waitForLoadTest,
} from "./harness.ts";

test("bug 1.7.8: a missing ConfigMap is reported, not retried in a loop; creating it later starts the test", async (t) => {
  const h = await startOperator(t);
  const { namespace } = h;
  const client = await testClient();
  await createLoadTest(namespace, "later", {}, { script: false });

  const waiting = await waitForLoadTest(
    namespace,
    "later",
    (o) => conditionOf(o, "Progressing")?.reason === "MissingTestScript",
    "MissingTestScript",
  );
  assert.match(conditionOf(waiting, "Progressing")?.message ?? "", /ConfigMap later-script .*not found/);
  assert.deepEqual(
    [conditionOf(waiting, "Stalled")?.status, conditionOf(waiting, "Stalled")?.reason],
    ["True", "MissingTestScript"],
  );
  assert.deepEqual(
    [conditionOf(waiting, "Succeeded")?.status, conditionOf(waiting, "Completed")?.status],
    ["Unknown", "False"],
  );
  assert.equal(kstatus(waiting).status, "Failed");
  await assert.rejects(client.get(Job, "later", { namespace }), NotFoundError, "no Job without a script");
  const warning = (await operatorEvents(namespace, "later", ["MissingTestScript"])).find(
    (e) => e.reason === "MissingTestScript",
  );
  assert.equal(warning?.type, "Warning");

  // No error loop: no reconcile, no write and no change of the LoadTest while nothing changes.
  const quiet = async () => ({
    reconciles: await h.reconciles(),
    writes: h.requests.writes,
    version: (await client.get(LoadTest, "later", { namespace })).metadata.resourceVersion,
  });
  await idle(h, "later");
  await staysFor(quiet, 5_000, "a LoadTest waiting for its script");

  await client.create(ConfigMap, scriptConfigMap(namespace, "later-script", "wrong-key.yaml"));
  const noKey = await waitForLoadTest(
    namespace,
    "later",
    (o) => /has no key test-script.yaml/.test(conditionOf(o, "Progressing")?.message ?? ""),
    "the missing key reported",
  );
  assert.equal(conditionOf(noKey, "Progressing")?.reason, "MissingTestScript");

  await client.patch(ConfigMap, "later-script", scriptConfigMap(namespace, "later-script"), {
    type: "merge",
    namespace,
  });
  const waited = await kubectlWaitCompleted(namespace, "later");
  assert.equal(waited.code, 0, waited.stderr);
  const done = await client.get(LoadTest, "later", { namespace });
  assert.deepEqual([conditionOf(done, "Completed")?.reason, done.status?.completions], ["Succeeded", "4/4"]);
  assert.equal(conditionOf(done, "Stalled"), undefined);
});
