/**
 * The Job a LoadTest runs as: one Indexed Job of `count` workers in which each worker runs exactly
 * once. A worker that fails (or whose pod is deleted or evicted) fails its index and is never
 * started again, and never stops the other workers; the Job finishes once every worker has.
 */
import type { JobObject, ServiceAccountObject } from "kubeloop";
import type { Container, PodTemplateSpec } from "kubeloop/api";
import { metadataMatches } from "kubeloop/ownership";
import { type LoadTestObject, type LoadTestSpec, OPERATOR_NAME, workerCount } from "./api.ts";
import { telemetryEnv, type WorkerTelemetry } from "./telemetry.ts";

/** Where the test-script ConfigMap is mounted in each worker. */
export const SCRIPT_DIR = "/data";
/** The ConfigMap key holding the Artillery script. */
export const SCRIPT_KEY = "test-script.yaml";
/** The worker container's name when the LoadTest's name cannot name a container (it has a dot). */
export const FALLBACK_CONTAINER_NAME = "artillery";
/** The environment variable carrying the worker's pod name, as in the Artillery operator. */
export const WORKER_ID_ENV = "WORKER_ID";
/** The environment variable carrying the worker's index (0 to count-1). */
export const WORKER_INDEX_ENV = "WORKER_INDEX";
/** The pod annotation the Job controller sets to the worker's completion index. */
const COMPLETION_INDEX_ANNOTATION = "batch.kubernetes.io/job-completion-index";
/** The pod label naming the LoadTest a worker belongs to. */
export const TEST_NAME_LABEL = "artillery.io/test-name";
/** The pod label every worker of every LoadTest carries (with the value `loadtest-worker`). */
export const COMPONENT_LABEL = "artillery.io/component";
/** Telemetry as the Artillery operator's defaults set it: on, without debug. */
export const DEFAULT_TELEMETRY: WorkerTelemetry = {
  disable: false,
  debug: false,
  testRunner: OPERATOR_NAME,
};

/**
 * The user workers run as: not root, as the `restricted` Pod Security Standard requires. 1000 is
 * the `node` user of the Node.js images Artillery's images are built on.
 */
export const WORKER_UID = 1000;

const dnsLabel = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/**
 * Whether the stored Job is as desired in what can change after creation: its labels, its owner
 * (among any other owner references, in any order) and parallelism. Its pod template is immutable
 * (and the LoadTest spec it comes from is too), and the apiserver normalises quantities in it, so
 * comparing the template would never settle.
 */
export function jobMatches(desired: JobObject, actual: JobObject): boolean {
  return metadataMatches(desired, actual) && actual.spec?.parallelism === desired.spec?.parallelism;
}

/** Labels of the Job (and, with `component` changed, its pods), as the Artillery operator sets them. */
export function jobLabels(name: string, component: "loadtest-worker-master" | "loadtest-worker") {
  return {
    [TEST_NAME_LABEL]: name,
    [COMPONENT_LABEL]: component,
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
 * pod to be terminal before counting it. `telemetry` comes from the operator's environment.
 */
export function desiredJob(loadTest: LoadTestObject, telemetry = DEFAULT_TELEMETRY): JobObject {
  const name = jobName(loadTest);
  const count = workerCount(loadTest.spec);
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
      template: podTemplate(name, loadTest.spec, telemetry),
    },
  };
}

/** The name of the ServiceAccount a LoadTest's workers run as: the Job's, with `-worker`. */
export function workerServiceAccountName(jobName: string): string {
  return `${jobName}-worker`;
}

/**
 * The ServiceAccount of a LoadTest's workers (owner reference not set: `ensureChild` sets it): one
 * per LoadTest, so the workers never borrow what the namespace's `default` account was given
 * (image pull secrets, a cloud identity), and without an API token.
 */
export function desiredServiceAccount(loadTest: LoadTestObject): ServiceAccountObject {
  const name = jobName(loadTest);
  return {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: {
      name: workerServiceAccountName(name),
      namespace: loadTest.metadata.namespace,
      labels: jobLabels(name, "loadtest-worker"),
    },
    automountServiceAccountToken: false,
  };
}

/** The worker container's name: the LoadTest's, as in the Artillery operator, when it is a DNS label. */
export function containerName(name: string): string {
  return dnsLabel.test(name) ? name : FALLBACK_CONTAINER_NAME;
}

/**
 * The worker pods: run once, as their own ServiceAccount without an API token, and within the
 * `restricted` Pod Security Standard (not root, no privilege escalation, no capabilities, the
 * runtime's seccomp profile).
 */
function podTemplate(name: string, spec: LoadTestSpec, telemetry: WorkerTelemetry): PodTemplateSpec {
  return {
    metadata: {
      labels: jobLabels(name, "loadtest-worker"),
      ...(spec.podAnnotations ? { annotations: { ...spec.podAnnotations } } : {}),
    },
    spec: {
      restartPolicy: "Never",
      serviceAccountName: workerServiceAccountName(name),
      automountServiceAccountToken: false,
      securityContext: {
        runAsNonRoot: true,
        runAsUser: WORKER_UID,
        runAsGroup: WORKER_UID,
        seccompProfile: { type: "RuntimeDefault" },
      },
      containers: [
        {
          name: containerName(name),
          image: spec.image,
          imagePullPolicy: spec.imagePullPolicy,
          args: workerArgs(spec),
          env: workerEnv(spec, telemetry),
          volumeMounts: [{ name: "test-script", mountPath: SCRIPT_DIR, readOnly: true }],
          securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
          ...(spec.resources ? { resources: spec.resources } : {}),
        },
      ],
      volumes: [{ name: "test-script", configMap: { name: spec.testScript.config.configMap } }],
    },
  };
}

/**
 * `run /data/test-script.yaml`, with `--environment <env>` only when `environmentToWorkers` asks
 * for it: the Artillery operator used `environment` for display only.
 */
export function workerArgs(spec: Pick<LoadTestSpec, "environment" | "environmentToWorkers">): string[] {
  const environment =
    spec.environmentToWorkers && spec.environment ? ["--environment", spec.environment] : [];
  return ["run", ...environment, `${SCRIPT_DIR}/${SCRIPT_KEY}`];
}

/**
 * `WORKER_ID` (the pod name, as the Artillery operator set it for Pushgateway job IDs),
 * `WORKER_INDEX` (the completion index), the telemetry variables the spec's `env` does not set,
 * then the spec's `env`, which may refer to the ones before it.
 */
export function workerEnv(spec: Pick<LoadTestSpec, "env">, telemetry: WorkerTelemetry): Container["env"] {
  const own = new Set((spec.env ?? []).map((e) => e.name));
  return [
    fieldEnv(WORKER_ID_ENV, "metadata.name"),
    fieldEnv(WORKER_INDEX_ENV, `metadata.annotations['${COMPLETION_INDEX_ANNOTATION}']`),
    ...telemetryEnv(telemetry).filter((e) => !own.has(e.name)),
    ...(spec.env ?? []),
  ];
}

function fieldEnv(name: string, fieldPath: string) {
  return { name, valueFrom: { fieldRef: { fieldPath } } };
}

/**
 * The label selector of a Job's worker pods, as `kubectl get pods -l` takes it: the Job's own
 * selector (the unique `batch.kubernetes.io/controller-uid` the Job controller finds its pods
 * with), so pods of an earlier LoadTest of the same name or labelled alike by hand are not included.
 */
export function workerSelector(job: JobObject): string | undefined {
  const labels = Object.entries(job.spec?.selector?.matchLabels ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return labels.length > 0 ? labels.map(([k, v]) => `${k}=${v}`).join(",") : undefined;
}
