/**
 * Migrating to the LoadTest operator from a previous one (a kubebuilder build of it, field
 * manager `manager`, as controller-runtime names it): a LoadTest's Job and its workers'
 * ServiceAccount already exist, made by that operator with a controller reference to the LoadTest —
 * by a plain create, as `CreateOrUpdate` creates, or created and then updated (a PUT) as
 * `CreateOrUpdate` updates — the ServiceAccount with more than this operator desires (an image
 * pull secret, an API token mounted, the token Secret of a cluster older than 1.24). Started as
 * deployed (the testing kit's `startOperator`, writing as the operator's name), the operator
 * follows the test to completion through that Job, makes the ServiceAccount its own (reported once
 * as drift), and no reconcile fails.
 */
import assert from "node:assert/strict";
import { before, type TestContext, test } from "node:test";
import {
  Job,
  type JobObject,
  type KubeObject,
  type ResourceType,
  ServiceAccount,
  type ServiceAccountObject,
} from "kubeloop";
import { controllerReference } from "kubeloop/ownership";
import {
  assertClaimsNoContent,
  assertNoFailedReconcile,
  PREVIOUS_OPERATOR,
  type PreviousWrite,
  startAsDeployed,
  writeAsPreviousOperator,
} from "../../../../test/e2e/fixtures/previous-operator.ts";
import { managerMetric, testNamespace } from "../../../../test/e2e/support.ts";
import { LoadTest, type LoadTestObject } from "../../api.ts";
import { desiredJob, desiredServiceAccount, workerServiceAccountName } from "../../job.ts";
import operator from "../../operator.ts";
import {
  conditionOf,
  createLoadTest,
  eventually,
  installCrd,
  testClient,
  waitForLoadTest,
} from "./harness.ts";

before(installCrd);

/**
 * What the previous operator made for `loadTest`: the Job this operator would make (from its
 * second version on, with a deadline), and a ServiceAccount (from its second version on, with an
 * image pull secret, the API token mounted, and a token Secret listed, as clusters before 1.24
 * listed one).
 */
function previousChildren(loadTest: LoadTestObject, version: 1 | 2): [ServiceAccountObject, JobObject] {
  const owned = <T extends KubeObject>(obj: T): T => ({
    ...obj,
    metadata: { ...obj.metadata, ownerReferences: [controllerReference(loadTest)] },
  });
  const account = owned(desiredServiceAccount(loadTest));
  const job = owned(desiredJob(loadTest));
  if (version === 1) return [account, job];
  assert.ok(job.spec);
  job.spec.activeDeadlineSeconds = 3600;
  const secrets = {
    imagePullSecrets: [{ name: "registry" }],
    secrets: [{ name: "legacy-worker-token-x7k2p" }],
  };
  return [{ ...account, automountServiceAccountToken: true, ...secrets }, job];
}

const typeOf = (child: KubeObject) =>
  (child.kind === "Job" ? Job : ServiceAccount) as ResourceType<KubeObject>;

/** The previous operator's update of a Job: its pod template is fixed once created, only the rest changes. */
const updateJob = (current: KubeObject) => {
  const spec = { ...(current as JobObject).spec, activeDeadlineSeconds: 3600 };
  return { ...current, spec } as KubeObject;
};

test("children a previous operator created are taken over: the LoadTest completes through its Job without a failed reconcile", async (t) => {
  await migrate(t, (loadTest) => previousChildren(loadTest, 2).map((child) => ({ child })));
});

test("children a previous operator created and then updated are taken over the same way", async (t) => {
  await migrate(t, (loadTest) => {
    const first = previousChildren(loadTest, 1);
    return previousChildren(loadTest, 2).map((child, i) => ({
      child,
      first: first[i],
      ...(child.kind === "Job" ? { update: updateJob } : {}),
    }));
  });
});

/** Creates a LoadTest and its children as the previous operator wrote them, then runs this operator. */
async function migrate(t: TestContext, writes: (loadTest: LoadTestObject) => PreviousWrite[]): Promise<void> {
  const ns = await testNamespace(t);
  const client = await testClient();
  await createLoadTest(ns, "legacy", { count: 2 });
  await writeAsPreviousOperator(t, writes(await client.get(LoadTest, "legacy", { namespace: ns })), typeOf);
  const job = await client.get(Job, "legacy", { namespace: ns });

  const running = await startAsDeployed(t, operator, ns);
  const done = await waitForLoadTest(
    ns,
    "legacy",
    (o) => conditionOf(o, "Completed")?.status === "True",
    "the LoadTest completed through the previous Job",
  );
  assert.deepEqual([conditionOf(done, "Completed")?.reason, done.status?.completions], ["Succeeded", "2/2"]);
  const kept = await client.get(Job, "legacy", { namespace: ns });
  assert.equal(kept.metadata.uid, job.metadata.uid, "the previous Job was followed, not replaced");

  const account = await eventually(
    async () => {
      const sa = await client.get(ServiceAccount, workerServiceAccountName("legacy"), { namespace: ns });
      const extras = [sa.imagePullSecrets, sa.secrets].filter((list) => list !== undefined);
      return sa.automountServiceAccountToken === false && extras.length === 0 && sa;
    },
    { what: "the workers' ServiceAccount as this operator desires it" },
  );
  assertClaimsNoContent(account);
  const drifts = (kind: string) =>
    managerMetric(running.manager, "kubeloop_drift_repairs_total", { kind, manager: PREVIOUS_OPERATOR });
  assert.equal(await drifts("ServiceAccount"), 1, "the ServiceAccount's drift reported once");
  assert.equal(await drifts("Job"), 0, "the Job is not exclusive: what others add to it stays");
  await assertNoFailedReconcile(running, ns);
}
