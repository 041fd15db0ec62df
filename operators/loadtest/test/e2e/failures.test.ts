/**
 * Failed workers: a load test always completes, a failed worker is never started again and never
 * stops the others. kwok fails the pods of the completion indexes named in their annotations.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Job, kstatus, Pod, type PodObject } from "kubeloop";
import { LoadTest } from "../../api.ts";
import {
  conditionOf,
  createLoadTest,
  eventually,
  type Harness,
  kubectlWaitCompleted,
  operatorEvents,
  startOperator,
  testClient,
  waitForLoadTest,
} from "./harness.ts";

const INDEX_ANNOTATION = "batch.kubernetes.io/job-completion-index";

/** Records every worker pod the Job controller creates, by completion index (from the operator's cache). */
function recordWorkerPods(h: Harness): Map<string, Set<string>> {
  const byIndex = new Map<string, Set<string>>();
  h.manager.cache.informer(Pod).addHandler({
    onAdd: (pod: PodObject) => {
      const index = pod.metadata.annotations?.[INDEX_ANNOTATION] ?? "?";
      byIndex.set(index, (byIndex.get(index) ?? new Set()).add(pod.metadata.uid ?? ""));
    },
  });
  return byIndex;
}

function podCounts(byIndex: Map<string, Set<string>>): Record<string, number> {
  return Object.fromEntries([...byIndex].map(([index, uids]) => [index, uids.size]).sort());
}

test("bug 1.7.1: a failed worker still completes the load test (WorkersFailed), the others run on", async (t) => {
  const h = await startOperator(t);
  const pods = recordWorkerPods(h);
  const { namespace } = h;
  await createLoadTest(namespace, "flaky", {
    podAnnotations: { "kubeloop.dev/fail-exit-code": "3", "kubeloop.dev/fail-indexes": "1" },
  });

  const waited = await kubectlWaitCompleted(namespace, "flaky");
  assert.equal(waited.code, 0, `kubectl wait returns for a test with a failed worker: ${waited.stderr}`);
  const obj = await (await testClient()).get(LoadTest, "flaky", { namespace });
  const completed = conditionOf(obj, "Completed");
  assert.deepEqual([completed?.status, completed?.reason], ["True", "WorkersFailed"]);
  assert.match(completed?.message ?? "", /1 of 4 workers failed \(indexes 1\)/);
  assert.deepEqual(
    [conditionOf(obj, "Succeeded")?.status, conditionOf(obj, "Succeeded")?.reason],
    ["False", "WorkersFailed"],
  );
  assert.deepEqual(
    [
      obj.status?.failed,
      obj.status?.succeeded,
      obj.status?.active,
      obj.status?.completions,
      obj.status?.failedIndexes,
    ],
    [1, 3, 0, "3/4", "1"],
  );
  assert.ok(obj.status?.completionTime, "a completion time although the Job failed");
  assert.equal(kstatus(obj).status, "Failed", "kstatus ends, it does not stay InProgress");
  assert.equal(conditionOf(obj, "Reconciling"), undefined);

  const job = await (await testClient()).get(Job, "flaky", { namespace });
  assert.equal(job.status?.succeeded, 3, "the three other workers ran to completion");
  assert.deepEqual(podCounts(pods), { "0": 1, "1": 1, "2": 1, "3": 1 }, "one pod per worker: none restarted");
  const phases = await workerPhases(namespace, "flaky");
  assert.deepEqual(phases, { "0": "Succeeded", "1": "Failed", "2": "Succeeded", "3": "Succeeded" });

  const warning = (await operatorEvents(namespace, "flaky", ["WorkersFailed"])).find(
    (e) => e.reason === "WorkersFailed",
  );
  assert.equal(warning?.type, "Warning");
});

test("a worker pod deleted mid-run is not replaced: its index fails and the others finish", async (t) => {
  const h = await startOperator(t);
  const pods = recordWorkerPods(h);
  const { namespace } = h;
  const client = await testClient();
  await createLoadTest(namespace, "cut", { podAnnotations: { "kubeloop.dev/run-duration": "25s" } });
  const victim = await eventually(
    async () => {
      const list = await client.list(Pod, { namespace, labelSelector: "artillery.io/test-name=cut" });
      const running = list.items.filter((p) => p.status?.phase === "Running");
      return running.length === 4
        ? running.find((p) => p.metadata.annotations?.[INDEX_ANNOTATION] === "2")
        : undefined;
    },
    { what: "4 workers running", timeoutMs: 60_000 },
  );
  const name = victim.metadata.name ?? "";
  await client.delete(Pod, name, { namespace });
  await eventually(async () => (await client.get(Pod, name, { namespace })).metadata.deletionTimestamp, {
    what: "the worker pod terminating",
  });
  // kwok has no kubelet to stop a deleted pod's container; play its part: the pod ends Failed (137).
  await client.status.patch(Pod, name, { status: killedStatus(victim) }, { type: "merge", namespace });

  const counted = await waitForLoadTest(
    namespace,
    "cut",
    (o) => o.status?.failed === 1,
    "the deleted worker counted failed",
  );
  assert.equal(counted.status?.active, 3, "the other workers still run");
  assert.equal(conditionOf(counted, "Progressing")?.status, "True");
  const done = await waitForLoadTest(
    namespace,
    "cut",
    (o) => conditionOf(o, "Completed")?.status === "True",
    "completed",
  );
  assert.equal(conditionOf(done, "Completed")?.reason, "WorkersFailed");
  assert.deepEqual([done.status?.succeeded, done.status?.failed, done.status?.failedIndexes], [3, 1, "2"]);
  assert.deepEqual(podCounts(pods), { "0": 1, "1": 1, "2": 1, "3": 1 }, "no replacement pod for index 2");
});

/** The status a kubelet writes for a pod whose container it killed. */
function killedStatus(pod: PodObject) {
  return {
    phase: "Failed",
    containerStatuses: (pod.spec?.containers ?? []).map((c) => ({
      name: c.name,
      image: c.image,
      imageID: "",
      ready: false,
      restartCount: 0,
      state: { terminated: { exitCode: 137, reason: "Error" } },
    })),
  };
}

async function workerPhases(namespace: string, name: string): Promise<Record<string, string>> {
  const list = await (await testClient()).list(Pod, {
    namespace,
    labelSelector: `artillery.io/test-name=${name}`,
  });
  return Object.fromEntries(
    list.items.map((p) => [p.metadata.annotations?.[INDEX_ANNOTATION] ?? "?", p.status?.phase ?? ""]).sort(),
  );
}
