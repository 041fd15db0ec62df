import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Container, OwnerReference } from "kubeloop/api";
import { controllerReference } from "kubeloop/ownership";
import { DEFAULT_IMAGE } from "../../api.ts";
import {
  containerName,
  desiredJob,
  desiredServiceAccount,
  jobMatches,
  workerArgs,
  workerSelector,
} from "../../job.ts";
import { telemetryFrom } from "../../telemetry.ts";
import { loadTest } from "./fixtures.ts";

function container(spec: Record<string, unknown> = {}): Container {
  const pod = desiredJob(loadTest(spec)).spec?.template.spec;
  assert.ok(pod);
  const [only, ...more] = pod.containers;
  assert.equal(more.length, 0);
  assert.ok(only);
  return only;
}

describe("desiredJob", () => {
  it("bug 1.7.1: one Indexed Job where each worker runs once and a failure never stops the others", () => {
    const { metadata, spec } = desiredJob(loadTest({ count: 4 }));
    assert.ok(spec?.template.spec);
    assert.deepEqual([metadata.name, metadata.namespace], ["checkout", "perf"]);
    assert.equal(spec.completionMode, "Indexed");
    assert.deepEqual([spec.completions, spec.parallelism], [4, 4]);
    assert.equal(spec.backoffLimitPerIndex, 0, "a failed worker is never started again");
    assert.equal(spec.maxFailedIndexes, 4, "every worker may fail without failing the Job early");
    assert.equal(spec.backoffLimit, undefined, "no Job-wide limit that would stop the other workers");
    assert.deepEqual(spec.podFailurePolicy, {
      rules: [{ action: "FailIndex", onPodConditions: [{ type: "DisruptionTarget", status: "True" }] }],
    });
    assert.equal(spec.template.spec.restartPolicy, "Never");
  });

  it("runs the workers as their own ServiceAccount without a token, within the restricted Pod Security Standard", () => {
    const pod = desiredJob(loadTest()).spec?.template.spec;
    assert.ok(pod);
    assert.equal(pod.serviceAccountName, "checkout-worker");
    assert.equal(pod.automountServiceAccountToken, false);
    assert.deepEqual(pod.securityContext, {
      runAsNonRoot: true,
      runAsUser: 1000,
      runAsGroup: 1000,
      seccompProfile: { type: "RuntimeDefault" },
    });
    assert.deepEqual(container().securityContext, {
      allowPrivilegeEscalation: false,
      capabilities: { drop: ["ALL"] },
    });
    const account = desiredServiceAccount(loadTest());
    assert.deepEqual([account.metadata.name, account.metadata.namespace], ["checkout-worker", "perf"]);
    assert.equal(account.automountServiceAccountToken, false);
  });

  it("gives every worker WORKER_ID (its pod name), WORKER_INDEX and the script at /data", () => {
    const job = desiredJob(loadTest());
    const worker = container();
    assert.deepEqual(worker.env?.slice(0, 2), [
      { name: "WORKER_ID", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
      {
        name: "WORKER_INDEX",
        valueFrom: {
          fieldRef: { fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" },
        },
      },
    ]);
    assert.deepEqual(worker.volumeMounts, [{ name: "test-script", mountPath: "/data", readOnly: true }]);
    assert.deepEqual(job.spec?.template.spec?.volumes, [
      { name: "test-script", configMap: { name: "script" } },
    ]);
    assert.deepEqual(worker.args, ["run", "/data/test-script.yaml"]);
  });

  it("passes the environment as --environment only with environmentToWorkers, as upstream did not", () => {
    assert.deepEqual(container({ environment: "staging" }).args, ["run", "/data/test-script.yaml"]);
    assert.deepEqual(container({ environment: "staging", environmentToWorkers: true }).args, [
      "run",
      "--environment",
      "staging",
      "/data/test-script.yaml",
    ]);
    assert.deepEqual(workerArgs({ environment: "", environmentToWorkers: true }), [
      "run",
      "/data/test-script.yaml",
    ]);
  });

  it("names the container after the LoadTest, as upstream, unless that name is no DNS label", () => {
    assert.equal(container().name, "checkout");
    assert.equal(containerName("shop.checkout"), "artillery");
    assert.equal(containerName("a".repeat(64)), "artillery");
  });

  it("injects the operator's telemetry settings as upstream, unless the spec's env sets them", () => {
    const telemetry = telemetryFrom({ ARTILLERY_DISABLE_TELEMETRY: "True" }, "loadtest-operator");
    const env = (spec: Record<string, unknown>) =>
      desiredJob(loadTest(spec), telemetry).spec?.template.spec?.containers[0]?.env ?? [];
    assert.deepEqual(env({}).slice(2), [
      { name: "ARTILLERY_DISABLE_TELEMETRY", value: "true" },
      { name: "ARTILLERY_TELEMETRY_DEBUG", value: "false" },
      { name: "ARTILLERY_TELEMETRY_DEFAULTS", value: '{"testRunner": "loadtest-operator"}' },
    ]);
    const own = env({ env: [{ name: "ARTILLERY_TELEMETRY_DEBUG", value: "true" }] });
    assert.deepEqual(
      own.filter((e) => e.name === "ARTILLERY_TELEMETRY_DEBUG"),
      [{ name: "ARTILLERY_TELEMETRY_DEBUG", value: "true" }],
    );
    assert.equal(telemetryFrom({}, "x").disable, false, "telemetry on when unset, as upstream");
  });

  it("names the workers by the Job's own selector", () => {
    const job = desiredJob(loadTest());
    assert.equal(workerSelector(job), undefined, "none before the apiserver defaults it");
    assert.ok(job.spec);
    job.spec.selector = { matchLabels: { "batch.kubernetes.io/controller-uid": "u1" } };
    assert.equal(workerSelector(job), "batch.kubernetes.io/controller-uid=u1");
  });

  it("bug 1.7.11: a pinned default image pulled IfNotPresent; image, policy and resources from the spec", () => {
    const defaults = container();
    assert.equal(defaults.image, DEFAULT_IMAGE);
    assert.match(DEFAULT_IMAGE, /^artilleryio\/artillery:\d+\.\d+\.\d+$/, "a version tag, never latest");
    assert.equal(defaults.imagePullPolicy, "IfNotPresent");
    assert.equal(defaults.resources, undefined);
    const custom = container({
      image: "registry.example/artillery:2.0.21",
      imagePullPolicy: "Always",
      resources: { requests: { cpu: "500m", memory: "512Mi" }, limits: { cpu: 1 } },
    });
    assert.equal(custom.image, "registry.example/artillery:2.0.21");
    assert.equal(custom.imagePullPolicy, "Always");
    assert.deepEqual(custom.resources, { requests: { cpu: "500m", memory: "512Mi" }, limits: { cpu: 1 } });
  });

  it("puts the user's env after the operator's and podAnnotations on the pods", () => {
    const job = desiredJob(
      loadTest({
        env: [{ name: "TARGET", value: "http://shop" }],
        podAnnotations: { "sidecar/inject": "true" },
      }),
    );
    const worker = job.spec?.template.spec?.containers[0];
    assert.deepEqual(
      worker?.env?.map((e) => e.name),
      [
        "WORKER_ID",
        "WORKER_INDEX",
        "ARTILLERY_DISABLE_TELEMETRY",
        "ARTILLERY_TELEMETRY_DEBUG",
        "ARTILLERY_TELEMETRY_DEFAULTS",
        "TARGET",
      ],
    );
    assert.deepEqual(job.spec?.template.metadata?.annotations, { "sidecar/inject": "true" });
  });

  it("labels the Job and its pods as the Artillery operator did", () => {
    const job = desiredJob(loadTest());
    assert.deepEqual(job.metadata.labels, {
      "artillery.io/test-name": "checkout",
      "artillery.io/component": "loadtest-worker-master",
      "artillery.io/part-of": "loadtest",
    });
    assert.equal(job.spec?.template.metadata?.labels?.["artillery.io/component"], "loadtest-worker");
  });
});

describe("jobMatches", () => {
  const loadTestOwner = loadTest({ count: 2 });
  const desired = () => {
    const job = desiredJob(loadTestOwner);
    job.metadata.ownerReferences = [controllerReference(loadTestOwner)];
    return job;
  };
  const stored = (ownerReferences: OwnerReference[]) => {
    const job = desiredJob(loadTestOwner);
    return { ...job, metadata: { ...job.metadata, uid: "uid-job", ownerReferences } };
  };
  const extra: OwnerReference = { apiVersion: "v1", kind: "ConfigMap", name: "bundle", uid: "uid-bundle" };

  it("treats owner references as a set: another owner's reference, before or after, is no difference", () => {
    const own = controllerReference(loadTestOwner);
    assert.equal(jobMatches(desired(), stored([own])), true);
    assert.equal(jobMatches(desired(), stored([extra, own])), true);
    assert.equal(jobMatches(desired(), stored([own, extra])), true);
  });

  it("sees a missing controller reference, a changed label or parallelism as a difference", () => {
    assert.equal(jobMatches(desired(), stored([extra])), false);
    const relabelled = stored([controllerReference(loadTestOwner)]);
    relabelled.metadata.labels = { ...relabelled.metadata.labels, "artillery.io/component": "other" };
    assert.equal(jobMatches(desired(), relabelled), false);
    const scaled = stored([controllerReference(loadTestOwner)]);
    assert.ok(scaled.spec);
    scaled.spec = { ...scaled.spec, parallelism: 1 };
    assert.equal(jobMatches(desired(), scaled), false);
  });
});
