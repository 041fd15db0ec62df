/**
 * LoadTest is not a confused deputy, and a test always completes (seed 000): the administrator's
 * worker policy refuses other images and Secret references, workers run as their own
 * ServiceAccount without a token within the `restricted` Pod Security Standard, and a test whose
 * workers cannot start completes at its start timeout.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { InvalidError, Job, Namespace, Pod, ServiceAccount } from "kubeloop";
import { LoadTest } from "../../api.ts";
import { NOT_STARTED_ANNOTATION } from "../../progress.ts";
import {
  conditionOf,
  createLoadTest,
  eventually,
  kubectl,
  kubectlWaitCompleted,
  loadTestManifest,
  operatorEvents,
  startOperator,
  staysFor,
  testClient,
  waitForLoadTest,
} from "./harness.ts";

const stealing = {
  image: "attacker.example/steal:latest",
  env: [{ name: "TOKEN", valueFrom: { secretKeyRef: { name: "db", key: "password" } } }],
};

test("a user who may only create LoadTests cannot run another image or read a Secret through the workers", async (t) => {
  const h = await startOperator(t);
  const { namespace } = h;
  await createLoadTest(namespace, "steal", stealing);
  await createLoadTest(namespace, "peek", { env: stealing.env });
  for (const [name, field] of [
    ["steal", /^spec\.image attacker\.example\/steal:latest .*LOADTEST_ALLOWED_IMAGES/],
    ["peek", /^spec\.env TOKEN reads a ConfigMap or Secret .*LOADTEST_ALLOW_VALUE_FROM=true/],
  ] as const) {
    const refused = await waitForLoadTest(
      namespace,
      name,
      (o) => conditionOf(o, "Stalled")?.reason === "WorkerNotAllowed",
      `${name} refused`,
    );
    assert.match(conditionOf(refused, "Stalled")?.message ?? "", field);
    assert.equal(
      conditionOf(refused, "Succeeded")?.status,
      "Unknown",
      "not run, not failed: waits for the administrator",
    );
  }
  const client = await testClient();
  assert.deepEqual((await client.list(Job, { namespace })).items, [], "no Job, no worker");
  const warnings = await operatorEvents(namespace, "steal", ["WorkerNotAllowed"]);
  assert.ok(warnings.some((e) => e.type === "Warning" && e.reason === "WorkerNotAllowed"));
});

test("the administrator's policy lets other images and references through", async (t) => {
  const env = { LOADTEST_ALLOWED_IMAGES: "registry.example/perf/*", LOADTEST_ALLOW_VALUE_FROM: "true" };
  const { namespace } = await startOperator(t, { env });
  const optional = {
    name: "TOKEN",
    valueFrom: { secretKeyRef: { name: "db", key: "password", optional: true } },
  };
  await createLoadTest(namespace, "allowed", {
    image: "registry.example/perf/artillery:2",
    env: [optional],
    count: 1,
  });
  const waited = await kubectlWaitCompleted(namespace, "allowed");
  assert.equal(waited.code, 0, waited.stderr);
  const done = await (await testClient()).get(LoadTest, "allowed", { namespace });
  assert.equal(conditionOf(done, "Completed")?.reason, "Succeeded");
});

test("workers run as their own ServiceAccount without a token, within the restricted Pod Security Standard", async (t) => {
  const h = await startOperator(t);
  const { namespace } = h;
  const client = await testClient();
  const labels = { "pod-security.kubernetes.io/enforce": "restricted" };
  await client.patch(Namespace, namespace, { metadata: { labels } }, { type: "merge" });
  const pullSecrets = { imagePullSecrets: [{ name: "registry" }] };
  await eventually(() => client.patch(ServiceAccount, "default", pullSecrets, { type: "merge", namespace }), {
    what: "the namespace's default ServiceAccount, given a pull secret",
  });
  await createLoadTest(namespace, "confined", { count: 2 });
  const waited = await kubectlWaitCompleted(namespace, "confined");
  assert.equal(waited.code, 0, waited.stderr);
  const done = await client.get(LoadTest, "confined", { namespace });
  assert.equal(conditionOf(done, "Completed")?.reason, "Succeeded", "PodSecurity admitted the workers");

  const account = await client.get(ServiceAccount, "confined-worker", { namespace });
  assert.equal(account.automountServiceAccountToken, false);
  assert.deepEqual(
    account.imagePullSecrets,
    [{ name: "registry" }],
    "the namespace's pull secrets, nothing else",
  );
  assert.equal(account.metadata.ownerReferences?.[0]?.uid, done.metadata.uid, "deleted with the LoadTest");
  const pods = await client.list(Pod, { namespace, labelSelector: "artillery.io/test-name=confined" });
  assert.equal(pods.items.length, 2);
  for (const pod of pods.items) {
    assert.ok(pod.spec);
    assert.equal(pod.spec.serviceAccountName, "confined-worker");
    assert.equal(pod.spec.automountServiceAccountToken, false);
    const mounts = pod.spec.containers[0]?.volumeMounts ?? [];
    assert.ok(!mounts.some((m) => m.mountPath.startsWith("/var/run/secrets")), "no API token mounted");
  }
});

test("seed 000: a quota forbidding Jobs ends the test at its start timeout, and it never runs later", async (t) => {
  const h = await startOperator(t);
  const { namespace } = h;
  await kubectl(["create", "quota", "no-jobs", "-n", namespace, "--hard=count/jobs.batch=0"]);
  await createLoadTest(namespace, "quota", { count: 1, startTimeoutSeconds: 4 });
  const waiting = await waitForLoadTest(
    namespace,
    "quota",
    (o) => conditionOf(o, "Progressing")?.reason === "JobRefused",
    "JobRefused",
  );
  assert.match(conditionOf(waiting, "Progressing")?.message ?? "", /exceeded quota/);
  assert.equal(conditionOf(waiting, "Completed")?.status, "False");
  const waited = await kubectlWaitCompleted(namespace, "quota", "30s");
  assert.equal(waited.code, 0, waited.stderr);
  const done = await (await testClient()).get(LoadTest, "quota", { namespace });
  assert.deepEqual(
    [conditionOf(done, "Completed")?.reason, conditionOf(done, "Succeeded")?.status],
    ["JobRefused", "False"],
  );
  assert.match(conditionOf(done, "Completed")?.message ?? "", /start timeout .*ran out/);

  await kubectl(["delete", "quota", "no-jobs", "-n", namespace]);
  await staysFor(
    async () => (await (await testClient()).list(Job, { namespace })).items.length,
    3_000,
    "no Job once the quota is gone",
  );
});

test("seed 000: workers the Job cannot create end the test at its start timeout (WorkersNotStarted)", async (t) => {
  const h = await startOperator(t);
  const { namespace } = h;
  await kubectl(["create", "quota", "no-pods", "-n", namespace, "--hard=pods=0"]);
  await createLoadTest(namespace, "nopods", { count: 2, startTimeoutSeconds: 4 });
  const waited = await kubectlWaitCompleted(namespace, "nopods", "60s");
  assert.equal(waited.code, 0, waited.stderr);
  const done = await (await testClient()).get(LoadTest, "nopods", { namespace });
  assert.deepEqual(
    [
      conditionOf(done, "Completed")?.reason,
      conditionOf(done, "Succeeded")?.status,
      done.status?.completions,
    ],
    ["WorkersNotStarted", "False", "0/2"],
  );
  assert.match(conditionOf(done, "Completed")?.message ?? "", /^2 of 2 workers had not started/);
  const job = await (await testClient()).get(Job, "nopods", { namespace });
  assert.equal(job.spec?.suspend, true, "no worker is created later");
  assert.ok(job.metadata.annotations?.[NOT_STARTED_ANNOTATION]);
  const events = await operatorEvents(namespace, "nopods", ["Failed"]);
  assert.ok(
    events.some((e) => e.reason === "Failed"),
    "the Artillery operator's Failed event",
  );
  await eventually(
    async () => (await (await testClient()).get(LoadTest, "nopods", { namespace })).status?.active === 0,
    { what: "no active worker" },
  );
});

test("names and images that cannot make valid workers are refused at admission", async (t) => {
  const { namespace } = await startOperator(t);
  const client = await testClient();
  const spec = { testScript: { config: { configMap: "s" } } };
  for (const [name, extra, field] of [
    [`long-${"x".repeat(60)}`, {}, /metadata\.name/],
    ["spaced", { image: " artilleryio/artillery" }, /spec\.image/],
  ] as const) {
    const refused = await client
      .create(LoadTest, loadTestManifest(namespace, name, { ...spec, ...extra }))
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    assert.ok(refused instanceof InvalidError, String(refused));
    assert.match(refused.message, field);
  }
});
