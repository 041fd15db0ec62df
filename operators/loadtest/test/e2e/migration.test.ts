/**
 * Migrating to the LoadTest operator from a previous one (a kubebuilder build of it, field
 * manager `manager`, as controller-runtime names it): a LoadTest's Job and its workers'
 * ServiceAccount already exist, made by that operator with a controller reference to the LoadTest —
 * by a plain create, as `CreateOrUpdate` creates, or created and then updated (a PUT) as
 * `CreateOrUpdate` updates — the ServiceAccount with more than this operator desires (an image
 * pull secret, an API token mounted, the token Secret of a cluster older than 1.24). Started as deployed (the testing kit's `startOperator`,
 * writing as the operator's name), the operator follows the test to completion through that Job,
 * makes the ServiceAccount its own (reported once as drift), and no reconcile fails.
 */
import assert from "node:assert/strict";
import { before, type TestContext, test } from "node:test";
import {
  Client,
  Event,
  Job,
  type JobObject,
  type KubeObject,
  type ResourceType,
  ServiceAccount,
  type ServiceAccountObject,
} from "kubeloop";
import { loadKubeconfig } from "kubeloop/client";
import { controllerReference } from "kubeloop/ownership";
import { startOperator } from "kubeloop/testing";
import { kubeconfigPath, managerMetric, testNamespace } from "../../../../test/e2e/support.ts";
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

const PREVIOUS = "manager";

/**
 * What the previous operator made for `loadTest`: the Job this operator would make, and a
 * ServiceAccount with an image pull secret, the API token mounted, and a token Secret listed (as
 * clusters before 1.24 listed one). Its first version of the ServiceAccount had none of these,
 * and its Job no deadline yet.
 */
function previousChildren(loadTest: LoadTestObject, version: 1 | 2 = 2): [ServiceAccountObject, JobObject] {
  const owned = <T extends KubeObject>(obj: T): T => ({
    ...obj,
    metadata: { ...obj.metadata, ownerReferences: [controllerReference(loadTest)] },
  });
  const account = owned(desiredServiceAccount(loadTest));
  const job = owned(desiredJob(loadTest));
  if (version === 1) return [account, job];
  assert.ok(job.spec);
  job.spec.activeDeadlineSeconds = 3600;
  return [{ ...account, automountServiceAccountToken: true, imagePullSecrets: [{ name: "registry" }] }, job];
}

/** A client of the previous operator. */
async function previousOperator(t: TestContext): Promise<Client> {
  const client = new Client(await loadKubeconfig({ kubeconfig: kubeconfigPath() }), {
    fieldManager: PREVIOUS,
  });
  t.after(() => client.close());
  return client;
}

const typeOf = (child: KubeObject) =>
  (child.kind === "Job" ? Job : ServiceAccount) as ResourceType<KubeObject>;

test("children a previous operator created are taken over: the LoadTest completes through its Job without a failed reconcile", async (t) => {
  await migrate(t, async (previous, children) => {
    for (const child of children) await previous.create(typeOf(child), child);
  });
});

test("children a previous operator created and then updated are taken over the same way", async (t) => {
  await migrate(t, async (previous, children, loadTest) => {
    for (const [first, child] of previousChildren(loadTest, 1).map((c, i) => [c, children[i]] as const)) {
      assert.ok(child);
      const type = typeOf(first);
      const { name = "", namespace } = first.metadata;
      await previous.create(type, first);
      // CreateOrUpdate's update: read, mutate, write (again on a 409: the Job's status moved). A
      // Job's pod template is fixed once created: only the rest changes.
      await eventually(async () => {
        const current = await previous.get(type, name, { namespace });
        const { metadata: _, ...content } = child;
        const changed =
          child.kind === "Job"
            ? { spec: { ...(current as JobObject).spec, activeDeadlineSeconds: 3600 } }
            : content;
        return previous.update(type, { ...current, ...changed });
      });
    }
  });
});

/** Creates a LoadTest and its children as the previous operator wrote them, then runs this operator. */
async function migrate(
  t: TestContext,
  write: (previous: Client, children: KubeObject[], loadTest: LoadTestObject) => Promise<void>,
): Promise<void> {
  const ns = await testNamespace(t);
  const client = await testClient();
  await createLoadTest(ns, "legacy", { count: 2 });
  const loadTest = await client.get(LoadTest, "legacy", { namespace: ns });
  await write(await previousOperator(t), previousChildren(loadTest), loadTest);
  const job = await client.get(Job, "legacy", { namespace: ns });

  const running = await startOperator(operator, {
    kubeconfig: kubeconfigPath(),
    manager: { namespace: ns, metrics: { host: "127.0.0.1", port: 0 } },
  });
  t.after(() => running.stop());
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
  for (const entry of account.metadata.managedFields ?? [])
    if (entry.manager === PREVIOUS)
      assert.deepEqual(
        Object.keys(entry.fieldsV1 ?? {}),
        ["f:metadata"],
        "the previous operator claims no content",
      );

  const drifts = (kind: string) =>
    managerMetric(running.manager, "kubeloop_drift_repairs_total", { kind, manager: PREVIOUS });
  assert.equal(await drifts("ServiceAccount"), 1, "the ServiceAccount's drift reported once");
  assert.equal(await drifts("Job"), 0, "the Job is not exclusive: what others add to it stays");
  assert.equal(await managerMetric(running.manager, "controller_runtime_reconcile_errors_total"), 0);
  assert.equal(await managerMetric(running.manager, "controller_runtime_terminal_reconcile_errors_total"), 0);
  await running.manager.recorder.flush(AbortSignal.timeout(10_000));
  const { items } = await client.list(Event, { namespace: ns });
  assert.deepEqual(
    items.filter((e) => e.reason === "ReconcileError").map((e) => e.note),
    [],
  );
}
