import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Container, OwnerReference } from "kubeloop/api";
import { controllerReference } from "kubeloop/ownership";
import { DEFAULT_IMAGE } from "../../api.ts";
import { desiredJob, jobMatches, workerArgs } from "../../job.ts";
import { loadTest } from "./fixtures.ts";

function container(spec: Record<string, unknown> = {}): Container {
  const job = desiredJob(loadTest(spec));
  const [only, ...more] = job.spec.template.spec.containers;
  assert.equal(more.length, 0);
  assert.ok(only);
  return only;
}

describe("desiredJob", () => {
  it("bug 1.7.1: one Indexed Job where each worker runs once and a failure never stops the others", () => {
    const { metadata, spec } = desiredJob(loadTest({ count: 4 }));
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

  it("gives every worker WORKER_ID from its completion index and the script at /data", () => {
    const job = desiredJob(loadTest());
    const worker = container();
    assert.deepEqual(worker.env?.at(-1), {
      name: "WORKER_ID",
      valueFrom: {
        fieldRef: { fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" },
      },
    });
    assert.deepEqual(worker.volumeMounts, [{ name: "test-script", mountPath: "/data", readOnly: true }]);
    assert.deepEqual(job.spec.template.spec.volumes, [
      { name: "test-script", configMap: { name: "script" } },
    ]);
    assert.deepEqual(worker.args, ["run", "/data/test-script.yaml"]);
  });

  it("bug 1.7.10: the environment reaches the workers as --environment", () => {
    assert.deepEqual(container({ environment: "staging" }).args, [
      "run",
      "--environment",
      "staging",
      "/data/test-script.yaml",
    ]);
    assert.deepEqual(workerArgs({ environment: "" }), ["run", "/data/test-script.yaml"]);
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
    assert.deepEqual(custom.resources, { requests: { cpu: "500m", memory: "512Mi" }, limits: { cpu: "1" } });
  });

  it("puts the user's env before WORKER_ID and podAnnotations on the pods", () => {
    const job = desiredJob(
      loadTest({
        env: [{ name: "TARGET", value: "http://shop" }],
        podAnnotations: { "sidecar/inject": "true" },
      }),
    );
    const worker = job.spec.template.spec.containers[0];
    assert.deepEqual(
      worker?.env?.map((e) => e.name),
      ["TARGET", "WORKER_ID"],
    );
    assert.deepEqual(job.spec.template.metadata?.annotations, { "sidecar/inject": "true" });
  });

  it("labels the Job and its pods as the Artillery operator did", () => {
    const job = desiredJob(loadTest());
    assert.deepEqual(job.metadata.labels, {
      "artillery.io/test-name": "checkout",
      "artillery.io/component": "loadtest-worker-master",
      "artillery.io/part-of": "loadtest",
    });
    assert.equal(job.spec.template.metadata?.labels?.["artillery.io/component"], "loadtest-worker");
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
    scaled.spec = { ...scaled.spec, parallelism: 1 };
    assert.equal(jobMatches(desired(), scaled), false);
  });
});
