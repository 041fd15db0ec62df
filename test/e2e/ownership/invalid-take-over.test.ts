/**
 * A take-over the apiserver refuses, on the real control plane: a previous operator created a
 * Runner's Job with an env entry in its pod template beyond what this operator desires, and a
 * Job's pod template is immutable. The Runner shows it (`Ready=False`, reason `InvalidChild`,
 * `Stalled=True`, naming the Job, the field and the fix), the reconcile is not retried, and once
 * the Job is deleted, as the message says, it is created again as desired and the Runner is Ready.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "zod";
import { Job, type JobObject, type ObjectOf } from "../../../src/api/index.ts";
import { controller, type Reconciler } from "../../../src/controller/index.ts";
import { controllerReference, ensureChild } from "../../../src/ownership/index.ts";
import { defineKind } from "../../../src/schema/index.ts";
import { type Condition, defineConditionSet, findCondition, writeStatus } from "../../../src/status/index.ts";
import { PREVIOUS_OPERATOR } from "../fixtures/previous-operator.ts";
import { clientAs, eventually, installKinds, testClient, testNamespace } from "../support.ts";
import { metric, startManager } from "./support.ts";

const RunnerConditions = defineConditionSet({ summary: "Ready", dependents: { JobReady: "normal-true" } });

/** Runs `spec.message` through a Job. */
const Runner = defineKind({
  group: "e2e.kubeloop.dev",
  version: "v1",
  kind: "Runner",
  scope: "Namespaced",
  spec: z.object({ message: z.string() }),
  conditions: RunnerConditions,
});

type RunnerObject = ObjectOf<typeof Runner>;

function desiredJob(
  runner: RunnerObject,
  env = [{ name: "MESSAGE", value: runner.spec.message }],
): JobObject {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: `${runner.metadata.name}-job`, namespace: runner.metadata.namespace },
    spec: {
      backoffLimit: 0,
      template: {
        metadata: { labels: { app: "runner" } },
        spec: {
          restartPolicy: "Never",
          containers: [{ name: "worker", image: "busybox:1.37", args: ["true"], env }],
        },
      },
    },
  };
}

const reconcileRunner: Reconciler<RunnerObject> = async (ctx) => {
  const runner = ctx.object;
  if (!runner) return;
  await ensureChild(ctx, runner, Job, desiredJob(runner));
  await writeStatus(ctx, Runner, runner, RunnerConditions, (draft) => {
    draft.set("JobReady", { status: "True", reason: "Created" });
    return {};
  });
};

test("an exclusive Job whose pod template a previous operator added to shows InvalidChild on its parent, naming the field and the fix, until it is deleted", async (t) => {
  await installKinds([Runner]);
  const ns = await testNamespace(t);
  const client = await testClient();
  const runner = await client.create(Runner, {
    apiVersion: Runner.apiVersion,
    kind: Runner.kind,
    metadata: { name: "nightly", namespace: ns },
    spec: { message: "hello" },
  });
  const previous = await clientAs(t, PREVIOUS_OPERATOR);
  const legacy = desiredJob(runner, [
    { name: "MESSAGE", value: "hello" },
    { name: "LEGACY", value: "1" },
  ]);
  legacy.metadata.ownerReferences = [controllerReference(runner)];
  const legacyJob = await previous.create(Job, legacy);

  const manager = await startManager(t, "runners-e2e", ns, {}, (m) => {
    controller(m).for(Runner).owns(Job).reconcile(reconcileRunner);
  });
  const conditionsOnce = (what: string, check: (conditions: Condition[]) => boolean) =>
    eventually(
      async () => {
        const live = await client.get(Runner, "nightly", { namespace: ns });
        const conditions = live.status?.conditions ?? [];
        return check(conditions) ? conditions : undefined;
      },
      { what, timeoutMs: 60_000 },
    );

  const stalled = await conditionsOnce(
    "Ready=False (InvalidChild)",
    (c) => findCondition(c, "Ready")?.reason === "InvalidChild",
  );
  const message = findCondition(stalled, "Ready")?.message ?? "";
  assert.match(
    message,
    new RegExp(
      `^Job ${ns}/nightly-job was refused as invalid when the fields other writers added were removed`,
    ),
  );
  assert.match(message, /spec\.template: Invalid value: .*: field is immutable/);
  assert.match(message, /spec\.template\.spec\.containers\[0\]\.env\[1\] \(manager\)/);
  assert.match(message, new RegExp(`Delete Job ${ns}/nightly-job so that it is created again as desired`));
  assert.match(message, /`exclusive: false`/);
  assert.equal(findCondition(stalled, "Stalled")?.status, "True");
  const [runners] = manager.controllers;
  assert.equal(runners?.queue.retries(`${ns}/nightly`), 0, "no backoff retry is pending");
  assert.ok((await metric(manager, "controller_runtime_terminal_reconcile_errors_total")) >= 1);

  // The fix the message names: delete the Job; it is created again as desired.
  await client.delete(Job, "nightly-job", { namespace: ns, propagationPolicy: "Background" });
  await conditionsOnce(
    "Ready=True once the Job is created again",
    (c) => findCondition(c, "Ready")?.status === "True",
  );
  const job = await client.get(Job, "nightly-job", { namespace: ns });
  assert.deepEqual(
    job.spec?.template.spec?.containers.map((c) => c.env?.map((e) => e.name)),
    [["MESSAGE"]],
  );
  assert.notEqual(job.metadata.uid, legacyJob.metadata.uid);
});
