/**
 * A load test whose workers all succeed: the Job the operator makes, the status and conditions it
 * reports, `kubectl wait` and `kubectl get`.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Job, kstatus } from "kubeloop";
import { DEFAULT_IMAGE, LoadTest } from "../../api.ts";
import {
  conditionOf,
  createLoadTest,
  eventually,
  kubectl,
  kubectlWaitCompleted,
  managerMetric,
  operatorEvents,
  startOperator,
  testClient,
  waitForLoadTest,
} from "./harness.ts";

test("4 workers succeed: Completed=True (Succeeded), Succeeded=True, 4/4, kubectl wait and get", async (t) => {
  const { namespace, manager } = await startOperator(t);
  await createLoadTest(namespace, "shop", { environment: "staging" });

  const waited = await kubectlWaitCompleted(namespace, "shop");
  assert.equal(waited.code, 0, waited.stderr);
  const obj = await (await testClient()).get(LoadTest, "shop", { namespace });
  assert.deepEqual(
    [conditionOf(obj, "Completed")?.status, conditionOf(obj, "Completed")?.reason],
    ["True", "Succeeded"],
  );
  assert.deepEqual(
    [conditionOf(obj, "Succeeded")?.status, conditionOf(obj, "Succeeded")?.reason],
    ["True", "Succeeded"],
  );
  assert.deepEqual(
    [conditionOf(obj, "Progressing")?.status, conditionOf(obj, "Progressing")?.reason],
    ["False", "Succeeded"],
  );
  assert.deepEqual(
    [obj.status?.active, obj.status?.succeeded, obj.status?.failed, obj.status?.completions],
    [0, 4, 0, "4/4"],
  );
  assert.ok(obj.status?.startTime && obj.status.completionTime, "start and completion times");
  assert.match(obj.status?.duration ?? "", /^\d+s$/);
  assert.equal(obj.status?.observedGeneration, obj.metadata.generation);
  assert.equal(obj.status?.image, DEFAULT_IMAGE);
  assert.equal(kstatus(obj).status, "Current");

  const table = await kubectl(["get", "loadtest", "shop", "-n", namespace]);
  const [header, row] = table.stdout.trim().split("\n");
  const columns = header?.split(/\s+/) ?? [];
  assert.deepEqual(columns.slice(0, 5), ["NAME", "COMPLETIONS", "DURATION", "AGE", "ENVIRONMENT"]);
  for (const name of ["COMPLETED", "REASON"])
    assert.ok(columns.includes(name), `column ${name} in ${header}`);
  const cells = row?.split(/\s+/) ?? [];
  const cell = (name: string) => cells[columns.indexOf(name)];
  assert.deepEqual(
    [cell("COMPLETIONS"), cell("ENVIRONMENT"), cell("COMPLETED"), cell("REASON"), cell("DURATION")],
    ["4/4", "staging", "True", "Succeeded", obj.status?.duration],
  );

  const reasons = (await operatorEvents(namespace, "shop", ["Created", "Succeeded", "Completed"])).map(
    (e) => e.reason,
  );
  assert.ok(reasons.includes("Created"), `a Created event in ${reasons.join(", ")}`);
  assert.ok(reasons.includes("Succeeded"), `a Succeeded event in ${reasons.join(", ")}`);
  assert.ok(
    reasons.includes("Completed"),
    `the Artillery operator's Completed event in ${reasons.join(", ")}`,
  );

  const transitions = (condition: string, status: string) =>
    managerMetric(manager, "kubeloop_condition_transitions_total", { kind: "LoadTest", condition, status });
  await eventually(async () => (await transitions("Completed", "True")) === 1, {
    what: "one Completed=True transition counted",
  });
  assert.equal(await transitions("Succeeded", "True"), 1);
});

test("bug 1.7.10 and 1.7.11: environment (opted in), image, pull policy, resources, env and annotations reach the Job", async (t) => {
  const { namespace } = await startOperator(t, {
    env: { LOADTEST_ALLOWED_IMAGES: "registry.example/artillery" },
  });
  await createLoadTest(namespace, "tuned", {
    count: 2,
    environment: "prod",
    environmentToWorkers: true,
    image: "registry.example/artillery:2.0.21",
    imagePullPolicy: "Always",
    resources: { requests: { cpu: "250m", memory: "256Mi" }, limits: { cpu: 1, memory: "512Mi" } },
    env: [{ name: "TARGET", value: "http://shop" }],
    podAnnotations: { "example.com/sidecar": "off" },
  });
  const job = await waitForJob(namespace, "tuned");
  assert.ok(job.spec);
  const worker = job.spec.template.spec?.containers[0];
  assert.deepEqual(worker?.args, ["run", "--environment", "prod", "/data/test-script.yaml"]);
  assert.equal(worker?.image, "registry.example/artillery:2.0.21");
  assert.equal(worker?.imagePullPolicy, "Always");
  assert.deepEqual(worker?.resources, {
    requests: { cpu: "250m", memory: "256Mi" },
    limits: { cpu: "1", memory: "512Mi" },
  });
  assert.deepEqual(worker?.env?.map((e) => e.name).slice(0, 2), ["WORKER_ID", "WORKER_INDEX"]);
  assert.equal(worker?.env?.at(-1)?.name, "TARGET");
  assert.equal(job.spec.template.metadata?.annotations?.["example.com/sidecar"], "off");
  assert.deepEqual([job.spec.completionMode, job.spec.completions, job.spec.parallelism], ["Indexed", 2, 2]);
  assert.deepEqual([job.spec.backoffLimitPerIndex, job.spec.maxFailedIndexes], [0, 2]);

  const done = await waitForLoadTest(
    namespace,
    "tuned",
    (o) => conditionOf(o, "Completed")?.status === "True",
    "completed",
  );
  assert.equal(done.status?.image, "registry.example/artillery:2.0.21");
});

test("defaults: one worker of the pinned image, pulled IfNotPresent", async (t) => {
  const { namespace } = await startOperator(t);
  await createLoadTest(namespace, "plain", { count: undefined }); // omitted: the CRD default applies
  const job = await waitForJob(namespace, "plain");
  const worker = job.spec?.template.spec?.containers[0];
  assert.deepEqual(
    [job.spec?.completions, worker?.image, worker?.imagePullPolicy],
    [1, DEFAULT_IMAGE, "IfNotPresent"],
  );
  assert.doesNotMatch(worker?.image ?? "", /:latest$/);
});

async function waitForJob(namespace: string, name: string) {
  const client = await testClient();
  return eventually(() => client.get(Job, name, { namespace }), {
    what: `Job ${name}`,
    timeoutMs: 60_000,
  });
}
