/**
 * The Job a LoadTest runs as: one Indexed Job of `count` workers in which each worker runs exactly
 * once. A worker that fails (or whose pod is deleted or evicted) fails its index and is never
 * started again, and never stops the other workers; the Job finishes once every worker has.
 */
import type { JobObject } from "kubeloop";
import type { PodTemplateSpec } from "kubeloop/api";
import { metadataMatches } from "kubeloop/ownership";
import type { LoadTestObject, LoadTestSpec } from "./api.ts";

/** Where the test-script ConfigMap is mounted in each worker. */
export const SCRIPT_DIR = "/data";
/** The ConfigMap key holding the Artillery script. */
export const SCRIPT_KEY = "test-script.yaml";
/** The worker container's name. */
export const CONTAINER_NAME = "artillery";
/** The environment variable carrying the worker's index (0 to count-1). */
export const WORKER_ID_ENV = "WORKER_ID";
/** The pod annotation the Job controller sets to the worker's completion index. */
const COMPLETION_INDEX_ANNOTATION = "batch.kubernetes.io/job-completion-index";

/**
 * Whether the stored Job is as desired in what can change after creation: its labels, its owner
 * (among any other owner references, in any order) and parallelism. Its pod template is immutable
 * (and the LoadTest spec it comes from is too), and the apiserver normalises quantities in it, so
 * comparing the template would never settle.
 */
export function jobMatches(desired: JobObject, actual: JobObject): boolean {
  return metadataMatches(desired, actual) && actual.spec.parallelism === desired.spec.parallelism;
}

/** Labels of the Job (and, with `component` changed, its pods), as the Artillery operator sets them. */
export function jobLabels(name: string, component: "loadtest-worker-master" | "loadtest-worker") {
  return {
    "artillery.io/test-name": name,
    "artillery.io/component": component,
    "artillery.io/part-of": "loadtest",
  };
}

/** The Job name of a LoadTest: its own name, as in the Artillery operator. */
export function jobName(loadTest: LoadTestObject): string {
  return loadTest.metadata.name ?? "";
}

/**
 * The desired Job of a LoadTest (owner reference not set: `ensureChild` sets it).
 * `backoffLimitPerIndex: 0` makes any worker failure final for its index; `maxFailedIndexes:
 * count` lets every other worker run on; the pod failure policy fails the index of a disrupted
 * (evicted, preempted) worker instead of starting it again, and makes the Job wait for a failed
 * pod to be terminal before counting it.
 */
export function desiredJob(loadTest: LoadTestObject): JobObject {
  const name = jobName(loadTest);
  const { count } = loadTest.spec;
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: {
      name,
      namespace: loadTest.metadata.namespace,
      labels: jobLabels(name, "loadtest-worker-master"),
    },
    spec: {
      completionMode: "Indexed",
      completions: count,
      parallelism: count,
      backoffLimitPerIndex: 0,
      maxFailedIndexes: count,
      podFailurePolicy: {
        rules: [{ action: "FailIndex", onPodConditions: [{ type: "DisruptionTarget", status: "True" }] }],
      },
      template: podTemplate(name, loadTest.spec),
    },
  };
}

function podTemplate(name: string, spec: LoadTestSpec): PodTemplateSpec {
  return {
    metadata: {
      labels: jobLabels(name, "loadtest-worker"),
      ...(spec.podAnnotations ? { annotations: { ...spec.podAnnotations } } : {}),
    },
    spec: {
      restartPolicy: "Never",
      containers: [
        {
          name: CONTAINER_NAME,
          image: spec.image,
          imagePullPolicy: spec.imagePullPolicy,
          args: workerArgs(spec),
          env: [...(spec.env ?? []), workerIdEnv()],
          volumeMounts: [{ name: "test-script", mountPath: SCRIPT_DIR, readOnly: true }],
          ...(spec.resources ? { resources: quantitiesAsStrings(spec.resources) } : {}),
        },
      ],
      volumes: [{ name: "test-script", configMap: { name: spec.testScript.config.configMap } }],
    },
  };
}

/** `run [--environment <env>] /data/test-script.yaml`. */
export function workerArgs(spec: Pick<LoadTestSpec, "environment">): string[] {
  const environment = spec.environment ? ["--environment", spec.environment] : [];
  return ["run", ...environment, `${SCRIPT_DIR}/${SCRIPT_KEY}`];
}

function workerIdEnv() {
  return {
    name: WORKER_ID_ENV,
    valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${COMPLETION_INDEX_ANNOTATION}']` } },
  };
}

type Quantities = Record<string, string | number>;

/** Resources with every quantity a string, as the Container type declares them. */
function quantitiesAsStrings(resources: { requests?: Quantities; limits?: Quantities }) {
  const strings = (q: Quantities | undefined) =>
    q && Object.fromEntries(Object.entries(q).map(([k, v]) => [k, String(v)]));
  const requests = strings(resources.requests);
  const limits = strings(resources.limits);
  return { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) };
}
