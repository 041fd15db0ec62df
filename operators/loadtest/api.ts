/**
 * The LoadTest kind (`loadtest.artillery.io/v1alpha1`, the Artillery operator's own group, unless
 * `LOADTEST_API_GROUP` says `loadtest.kubeloop.dev`): its spec, status, conditions and printer
 * columns, defined once with zod. The spec is a superset of the Artillery operator's LoadTest
 * (`count`, `environment`, `testScript`), so an Artillery manifest applies unchanged.
 */
import { defineConditionSet, defineKind, KubeloopError, type ObjectOf, withRules, z } from "kubeloop";
import { AGE_COLUMN } from "kubeloop/schema";
import { NOT_REPORTED_REASON, type RollUp } from "kubeloop/status";

/** The Artillery operator's API group, served by default so its manifests apply unchanged. */
export const ARTILLERY_GROUP = "loadtest.artillery.io";
/** kubeloop's own API group, for clusters that run the Artillery operator alongside. */
export const KUBELOOP_GROUP = "loadtest.kubeloop.dev";
/** The environment variable of the operator's process (and of `kubeloop generate`) choosing the group. */
export const API_GROUP_ENV = "LOADTEST_API_GROUP";

/**
 * The API group named by `env[API_GROUP_ENV]`: the Artillery operator's when unset, kubeloop's own
 * when asked for. Throws a `KubeloopError` (`KL_LOADTEST_API_GROUP`) on any other value, which
 * would serve a CRD no manifest targets.
 */
export function apiGroupFrom(env: Readonly<Record<string, string | undefined>>): string {
  const group = env[API_GROUP_ENV] || ARTILLERY_GROUP;
  if (group === ARTILLERY_GROUP || group === KUBELOOP_GROUP) return group;
  throw new KubeloopError(
    "KL_LOADTEST_API_GROUP",
    `${API_GROUP_ENV}=${group} is not a LoadTest API group; use ${ARTILLERY_GROUP} or ${KUBELOOP_GROUP}`,
  );
}

/** The operator's name: its field manager, event reporter and the workers' telemetry `testRunner`. */
export const OPERATOR_NAME = "loadtest-operator";

/** The worker image when the spec names none: a pinned Artillery release, never `:latest`. */
export const DEFAULT_IMAGE = "artilleryio/artillery:2.0.23";

/** Why the spec cannot change once created. */
export const IMMUTABLE_SPEC_MESSAGE =
  "spec is immutable: a load test runs once; delete the LoadTest and create it again to run a changed test";

/** Condition reasons the LoadTest controller writes. */
export const Reasons = {
  /** The Job runs and a worker runs, or every worker has started. */
  WorkersRunning: "WorkersRunning",
  /**
   * The Job exists and no worker runs yet: each that has not finished is Pending (being scheduled,
   * its image pulled, or no node fits it) or not created yet (a quota on pods).
   */
  WorkersStarting: "WorkersStarting",
  /** Every worker finished and exited 0. */
  Succeeded: "Succeeded",
  /** Every worker finished and at least one failed. */
  WorkersFailed: "WorkersFailed",
  /** The Job finished as failed without a failed worker (e.g. someone set a deadline on it). */
  JobFailed: "JobFailed",
  /** The test-script ConfigMap, or its `test-script.yaml` key, is missing. */
  MissingTestScript: "MissingTestScript",
  /** A Job with the LoadTest's name exists and is not controlled by this LoadTest. */
  JobConflict: "JobConflict",
  /** The apiserver rejected the Job built from the spec. */
  InvalidJob: "InvalidJob",
  /** The LoadTest's Job was deleted after the test had started; it is not run twice. */
  JobDeleted: "JobDeleted",
  /** The operator's administrator does not let workers run the image or read the references asked for. */
  WorkerNotAllowed: "WorkerNotAllowed",
  /** A quota or an admission check of the namespace refused the Job. */
  JobRefused: "JobRefused",
  /** Some workers had not started when the start timeout ran out; the test ended without them. */
  WorkersNotStarted: "WorkersNotStarted",
} as const;

/** How long a test may wait for its workers to start when the spec does not say: 5 minutes. */
export const DEFAULT_START_TIMEOUT_SECONDS = 300;

/**
 * The number of workers of a spec: `count`, where 0 means one worker, as in the Artillery
 * operator (its `count` was optional, and 0 was the same as unset).
 */
export function workerCount(spec: { readonly count: number }): number {
  return Math.max(1, spec.count);
}

/**
 * Rolls the summary `Succeeded` up from `Completed`: True when every worker succeeded, False when
 * the test completed otherwise, Unknown (with `Progressing`'s reason) until it completed.
 */
export const rollUpLoadTest: RollUp<"Progressing" | "Completed"> = (dependents) => {
  const completed = dependents.find((d) => d.type === "Completed")?.condition;
  if (completed?.status === "True") {
    const succeeded = completed.reason === Reasons.Succeeded;
    return {
      status: succeeded ? "True" : "False",
      reason: completed.reason,
      message: completed.message,
      lastTransitionTime: completed.lastTransitionTime,
    };
  }
  const progressing = dependents.find((d) => d.type === "Progressing")?.condition;
  return {
    status: "Unknown",
    reason: progressing?.reason ?? NOT_REPORTED_REASON,
    message: progressing?.message ?? "",
  };
};

/**
 * The conditions of a LoadTest: `Progressing` (True while workers run) and `Completed` (True once
 * every worker finished, whatever the outcome), rolled up into `Succeeded`; plus kstatus's
 * `Reconciling` / `Stalled`.
 */
export const LoadTestConditions = defineConditionSet({
  summary: "Succeeded",
  dependents: { Progressing: "normal-true", Completed: "normal-true" },
  rollUp: rollUpLoadTest,
});

/** A Kubernetes quantity: `500m`, `1Gi`, or a plain integer. */
const quantity = z.union([z.int(), z.string()]);

const resources = z
  .object({
    requests: z.record(z.string(), quantity).optional().describe("Minimum resources per worker."),
    limits: z.record(z.string(), quantity).optional().describe("Maximum resources per worker."),
  })
  .describe("Compute resources of each worker container.");

const keyRef = z.object({
  name: z.string().min(1).max(253),
  key: z.string().min(1).max(253),
  optional: z.boolean().optional(),
});

const envVar = z.object({
  name: z.string().min(1).max(256),
  value: z.string().max(32768).optional(),
  valueFrom: z
    .object({
      configMapKeyRef: keyRef.optional(),
      secretKeyRef: keyRef.optional(),
      fieldRef: z
        .object({ fieldPath: z.string().min(1).max(256), apiVersion: z.string().optional() })
        .optional(),
    })
    .optional(),
});

const env = withRules(z.array(envVar).max(100), {
  rule: "self.all(e, e.name != 'WORKER_ID' && e.name != 'WORKER_INDEX')",
  message:
    "WORKER_ID (the pod name) and WORKER_INDEX (the worker's index) are set by the operator; use another name",
}).describe(
  "Environment variables of each worker (WORKER_ID and WORKER_INDEX are always set by the operator).",
);

const configMapNames = z.array(z.string().max(253)).max(64);

const external = z
  .object({
    payload: z.object({ configMaps: configMapNames.optional() }).optional(),
    processor: z
      .object({
        main: z.object({ configMap: z.string().max(253).optional() }).optional(),
        related: z.object({ configMaps: configMapNames.optional() }).optional(),
      })
      .optional(),
  })
  .describe("Accepted so Artillery manifests validate; not used, as in the Artillery operator.");

const testScript = z
  .object({
    config: z.object({
      configMap: z
        .string()
        .min(1)
        .max(253)
        .describe(
          "ConfigMap in the LoadTest's namespace whose key test-script.yaml is the Artillery script.",
        ),
    }),
    external: external.optional(),
  })
  .describe("Where the test script comes from.");

/** The LoadTest spec. */
export const loadTestSpec = z.object({
  count: z
    .int()
    .min(0)
    .max(100_000)
    .default(1)
    .describe("Number of workers; each runs the script once (0 means 1, as in the Artillery operator)."),
  environment: z
    .string()
    .max(253)
    .optional()
    .describe(
      "Artillery environment (config.environments key); passed to workers only with environmentToWorkers.",
    ),
  environmentToWorkers: z
    .boolean()
    .optional()
    .describe(
      "Run the workers with --environment <environment>. Off by default, as in the Artillery operator, which used environment only for display.",
    ),
  testScript,
  image: z
    .string()
    .min(1)
    .max(1024)
    .regex(/^\S+$/)
    .default(DEFAULT_IMAGE)
    .describe("Worker container image, one the operator's administrator allows (LOADTEST_ALLOWED_IMAGES)."),
  startTimeoutSeconds: z
    .int()
    .min(1)
    .max(86_400)
    .default(DEFAULT_START_TIMEOUT_SECONDS)
    .describe(
      "How long the test waits for all its workers to start (from its creation, or the Job's start) before it completes without the rest.",
    ),
  imagePullPolicy: z.enum(["Always", "IfNotPresent", "Never"]).default("IfNotPresent"),
  resources: resources.optional(),
  env: env.optional(),
  podAnnotations: z
    .record(z.string(), z.string())
    .optional()
    .describe("Annotations put on every worker pod (sidecar injection, scheduling hints)."),
});

/** The LoadTest status fields besides conditions and observedGeneration. */
export const loadTestStatus = z.object({
  active: z
    .int()
    .optional()
    .describe("Workers whose pods are active, Pending ones included (the Job's active)."),
  succeeded: z.int().optional().describe("Workers that finished and exited 0."),
  failed: z.int().optional().describe("Workers that failed; a failed worker is never restarted."),
  completions: z.string().optional().describe('Succeeded workers of all, e.g. "2/4".'),
  failedIndexes: z.string().optional().describe('Indexes of the failed workers, e.g. "1,3".'),
  startTime: z.iso.datetime().optional().describe("When the workers' Job started."),
  completionTime: z.iso.datetime().optional().describe("When the last worker finished."),
  duration: z
    .string()
    .optional()
    .describe("Start to completion once completed; while running, elapsed time in 30 s steps."),
  image: z.string().optional().describe("Image the workers run."),
  selector: z
    .string()
    .optional()
    .describe("Label selector of the worker pods, e.g. for kubectl get pods -l <selector>."),
});

/** A column of one field of the condition of `type`. */
function conditionColumn(name: string, type: string, field: "status" | "reason") {
  return { name, type: "string", jsonPath: `.status.conditions[?(@.type=="${type}")].${field}` } as const;
}

/**
 * The LoadTest kind. Its condition set is not given to `defineKind`, which would put the summary
 * columns first: the Artillery operator's columns come first, in its order, then ours. Its name
 * names the Job and labels every worker, so it is at most 63 characters.
 */
export const LoadTest = defineKind({
  group: apiGroupFrom(process.env),
  version: "v1alpha1",
  kind: "LoadTest",
  scope: "Namespaced",
  description: "A distributed Artillery load test: count workers each run the test script once.",
  spec: loadTestSpec,
  status: loadTestStatus,
  validations: [{ rule: "self == oldSelf", message: IMMUTABLE_SPEC_MESSAGE }],
  maxNameLength: 63,
  printerColumns: [
    { name: "Completions", type: "string", jsonPath: ".status.completions" },
    { name: "Duration", type: "string", jsonPath: ".status.duration" },
    AGE_COLUMN,
    { name: "Environment", type: "string", jsonPath: ".spec.environment" },
    conditionColumn(LoadTestConditions.summary, LoadTestConditions.summary, "status"),
    conditionColumn("Reason", LoadTestConditions.summary, "reason"),
    conditionColumn("Completed", "Completed", "status"),
    { name: "Image", type: "string", jsonPath: ".status.image", priority: 10 },
  ],
});

/** A LoadTest as stored in the cluster. */
export type LoadTestObject = ObjectOf<typeof LoadTest>;

/** A LoadTest's spec, defaults applied. */
export type LoadTestSpec = LoadTestObject["spec"];

/** A LoadTest's status. */
export type LoadTestStatus = NonNullable<LoadTestObject["status"]>;
