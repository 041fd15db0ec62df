/**
 * The Artillery operator's own samples, applied unchanged: the copies in `../upstream/` (each
 * names its source path and commit in its first line) go to the `default` namespace they name,
 * with `kubectl apply -f` and `kubectl apply -k` as upstream's docs apply them, and run to
 * completion on kwok's workers. The test provides only the script ConfigMaps the `config/samples`
 * LoadTests name and upstream does not ship. Checked as upstream users depend on it: its columns
 * first, `status.duration` formatted as upstream, its `Running` (per worker) and `Completed` events
 * beside ours, `WORKER_ID` the pod name, the container named after the LoadTest, no
 * `--environment`, and the workers found through `status.selector`.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { ConfigMap, Job, type JobObject } from "kubeloop";
import type { LoadTestObject } from "../../api.ts";
import {
  conditionOf,
  eventually,
  kubectl,
  operatorEvents,
  scriptConfigMap,
  startOperator,
  testClient,
  waitForLoadTest,
} from "./harness.ts";

/** The namespace upstream's samples name. */
const NAMESPACE = "default";

const fixture = (path: string) => fileURLToPath(new URL(`../upstream/${path}`, import.meta.url));

/** What `kubectl apply` takes for each sample: files, and kustomizations (which make their script). */
const APPLY_ARGS = [
  ["-f", fixture("config/samples/loadtest_v1alpha1_loadtest.yaml")],
  ["-f", fixture("config/samples/loadtest_v1alpha1_loadtest_other.yaml")],
  ["-k", fixture("hack/examples/basic-loadtest")],
  ["-k", fixture("hack/examples/published-metrics-loadtest")],
];

/** The LoadTests those samples define, with their worker counts and environments. */
const SAMPLES = [
  { name: "loadtest-sample", count: 10, environment: "stage" },
  { name: "loadtest-other", count: 5, environment: "dev" },
  { name: "basic-test", count: 2, environment: "dev" },
  { name: "test-378dbbbd-03eb-4d0e-8a66-39033a76d0f3", count: 4, environment: "staging" },
];

test("the Artillery operator's samples apply unchanged and complete with upstream's columns, events and variables", async (t) => {
  await startOperator(t, { namespace: NAMESPACE });
  const client = await testClient();
  for (const script of ["load-test-config", "load-test-other-config"])
    await client.apply(ConfigMap, scriptConfigMap(NAMESPACE, script));
  t.after(() => deleteSamples(["load-test-config", "load-test-other-config"]));
  for (const args of APPLY_ARGS) {
    const applied = await kubectl(["apply", ...args]);
    assert.match(applied.stdout, /loadtest\.loadtest\.artillery\.io\/\S+ (created|configured|unchanged)/);
  }

  for (const sample of SAMPLES) await checkCompleted(sample);
  await checkColumns();
});

async function checkCompleted(sample: (typeof SAMPLES)[number]): Promise<void> {
  const { name, count } = sample;
  const done = await waitForLoadTest(
    NAMESPACE,
    name,
    (o) => conditionOf(o, "Completed")?.status === "True",
    `${name} completed`,
    120_000,
  );
  assert.deepEqual(
    [conditionOf(done, "Completed")?.reason, done.status?.completions],
    ["Succeeded", `${count}/${count}`],
    name,
  );
  assert.match(done.status?.duration ?? "", /^\d+s$/, "seconds, as upstream's HumanDuration below 2 minutes");
  checkWorkers(await (await testClient()).get(Job, name, { namespace: NAMESPACE }), name);
  await checkEvents(done, count);
}

/** The worker as upstream built it: named after the LoadTest, WORKER_ID its pod name, no --environment. */
function checkWorkers(job: JobObject, name: string): void {
  const worker = job.spec?.template.spec?.containers[0];
  assert.equal(worker?.name, name);
  assert.deepEqual(worker?.args, ["run", "/data/test-script.yaml"]);
  const workerId = worker?.env?.find((e) => e.name === "WORKER_ID");
  assert.deepEqual(workerId?.valueFrom, { fieldRef: { apiVersion: "v1", fieldPath: "metadata.name" } });
  for (const variable of ["WORKER_INDEX", "ARTILLERY_DISABLE_TELEMETRY", "ARTILLERY_TELEMETRY_DEFAULTS"])
    assert.ok(
      worker?.env?.some((e) => e.name === variable),
      `${variable} in ${worker?.env?.map((e) => e.name)}`,
    );
}

/**
 * One `Running` event per worker naming its pod, found again through `status.selector`; the
 * `Created` event naming that selector; upstream's `Completed` beside our `Succeeded`.
 */
async function checkEvents(done: LoadTestObject, count: number): Promise<void> {
  const name = done.metadata.name ?? "";
  const selector = done.status?.selector ?? "";
  assert.match(selector, /^batch\.kubernetes\.io\/controller-uid=/);
  const pods = await kubectl(["get", "pods", "-n", NAMESPACE, "-l", selector, "-o", "name"]);
  const podNames = pods.stdout
    .trim()
    .split("\n")
    .map((line) => line.replace("pod/", ""))
    .sort();
  assert.equal(podNames.length, count, `the selector finds the ${count} workers`);
  const events = await eventually(
    async () => {
      const found = await operatorEvents(NAMESPACE, name);
      const reasons = new Set(found.map((e) => e.reason));
      return reasons.has("Completed") && reasons.has("Succeeded") && reasons.has("Created")
        ? found
        : undefined;
    },
    { what: `the events of ${name}` },
  );
  const running = events.filter((e) => e.reason === "Running").map((e) => e.note?.replace(/^.*: /, ""));
  assert.deepEqual(running.sort(), podNames, "one Running event per worker, naming its pod");
  const created = events.find((e) => e.reason === "Created");
  assert.ok(created?.note?.includes(`kubectl get pods -l ${selector}`), created?.note);
  const completed = events.find((e) => e.reason === "Completed");
  assert.deepEqual([completed?.type, completed?.note], ["Normal", "Load Test completed"]);
}

/** `kubectl get loadtests`: upstream's columns first (Age excepted: kubeloop puts it last). */
async function checkColumns(): Promise<void> {
  const table = await kubectl(["get", "loadtests", "-n", NAMESPACE]);
  const [header, ...rows] = table.stdout.trim().split("\n");
  const columns = header?.split(/\s+/) ?? [];
  assert.deepEqual(columns.slice(0, 5), ["NAME", "COMPLETIONS", "DURATION", "AGE", "ENVIRONMENT"]);
  for (const { name, count, environment } of SAMPLES) {
    const cells = rows.find((row) => row.startsWith(`${name} `))?.split(/\s+/) ?? [];
    assert.deepEqual([cells[1], cells[4]], [`${count}/${count}`, environment], name);
  }
}

async function deleteSamples(scripts: string[]): Promise<void> {
  for (const args of APPLY_ARGS) await kubectl(["delete", "--wait=false", "--ignore-not-found", ...args]);
  await kubectl(["delete", "configmap", "-n", NAMESPACE, "--ignore-not-found", ...scripts]);
}
