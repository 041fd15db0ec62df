/** A spec change after creation is rejected by the apiserver (a CEL rule), never silently ignored. */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { InvalidError, Job } from "kubeloop";
import { IMMUTABLE_SPEC_MESSAGE, LoadTest } from "../../api.ts";
import {
  conditionOf,
  createLoadTest,
  idle,
  kubectl,
  startOperator,
  staysFor,
  testClient,
  waitForLoadTest,
} from "./harness.ts";

test("bug 1.7.6: a spec change after the start is rejected with the CEL rule's message", async (t) => {
  const { namespace } = await startOperator(t);
  const client = await testClient();
  await createLoadTest(namespace, "fixed", { count: 2 });
  const started = await waitForLoadTest(namespace, "fixed", (o) => Boolean(o.status?.startTime), "started");

  const patched = await kubectl(
    ["patch", "loadtest", "fixed", "-n", namespace, "--type=merge", "-p", '{"spec":{"count":5}}'],
    { allowFail: true },
  );
  assert.notEqual(patched.code, 0, "kubectl patch is refused");
  assert.ok(patched.stderr.includes(IMMUTABLE_SPEC_MESSAGE), patched.stderr);
  const rejected = await client
    .patch(LoadTest, "fixed", { spec: { environment: "prod" } }, { type: "merge", namespace })
    .then(
      () => undefined,
      (err: unknown) => err,
    );
  assert.ok(rejected instanceof InvalidError, String(rejected));
  assert.ok(rejected.message.includes(IMMUTABLE_SPEC_MESSAGE), rejected.message);

  const after = await client.get(LoadTest, "fixed", { namespace });
  assert.equal(after.metadata.generation, started.metadata.generation, "the spec did not change");
  assert.deepEqual([after.spec.count, after.spec.environment], [2, undefined]);
  assert.equal((await client.get(Job, "fixed", { namespace })).spec?.completions, 2);

  await client.patch(
    LoadTest,
    "fixed",
    { metadata: { labels: { team: "shop" } } },
    { type: "merge", namespace },
  );
  const done = await waitForLoadTest(
    namespace,
    "fixed",
    (o) => conditionOf(o, "Completed")?.status === "True",
    "done",
  );
  assert.equal(done.metadata.labels?.team, "shop", "metadata stays editable");
  assert.equal(done.status?.observedGeneration, done.metadata.generation);
});

test("a Job the apiserver rejects completes the test as InvalidJob at once, without a retry loop", async (t) => {
  const h = await startOperator(t);
  // Admitted as a LoadTest (quantities are not compared there), refused in the Job: request > limit.
  const resources = { requests: { cpu: "2" }, limits: { cpu: "1" } };
  await createLoadTest(h.namespace, "overdrawn", { count: 1, resources });
  const obj = await waitForLoadTest(
    h.namespace,
    "overdrawn",
    (o) => conditionOf(o, "Completed")?.reason === "InvalidJob",
    "InvalidJob",
  );
  assert.match(conditionOf(obj, "Completed")?.message ?? "", /the Job was rejected/);
  assert.deepEqual(
    [
      conditionOf(obj, "Completed")?.status,
      conditionOf(obj, "Stalled")?.status,
      conditionOf(obj, "Succeeded")?.status,
    ],
    ["True", "True", "False"],
    "its spec cannot change, so the test is over",
  );
  await idle(h, "overdrawn");
  await staysFor(
    async () => [await h.reconciles(), h.requests.writes],
    3_000,
    "a LoadTest whose Job is invalid",
  );
});

test("the sample LoadTest completes with its one failing worker", async (t) => {
  const { namespace } = await startOperator(t);
  const sample = await readFile(new URL("../../samples/loadtest.yaml", import.meta.url), "utf8");
  await kubectl(["apply", "-n", namespace, "-f", "-"], { input: sample });
  const waited = await kubectl(
    ["wait", "-n", namespace, "--for=condition=Completed", "loadtest/checkout", "--timeout=120s"],
    { allowFail: true },
  );
  assert.equal(waited.code, 0, waited.stderr);
  const done = await (await testClient()).get(LoadTest, "checkout", { namespace });
  assert.deepEqual(
    [conditionOf(done, "Completed")?.reason, done.status?.completions, done.status?.failedIndexes],
    ["WorkersFailed", "3/4", "1"],
  );
});
