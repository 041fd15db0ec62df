/**
 * The LoadTest reconciler, level-triggered: it reads the LoadTest, its Job and its test-script
 * ConfigMap from the cache, creates the Job once the script is there, and writes the status it
 * observes. A missing script or a foreign Job is reported as a condition and waited for (the
 * ConfigMap and Job watches bring the LoadTest back), never retried in a loop.
 */
import {
  Action,
  AlreadyExistsError,
  ChildConflictError,
  ConfigMap,
  type ConfigMapObject,
  controllerOf,
  ensureChild,
  InvalidError,
  isControlledBy,
  isTrue,
  Job,
  type JobObject,
  type PodObject,
  type ReconcileContext,
  ServiceAccount,
  setControllerReference,
  writeStatus,
} from "kubeloop";
import { childRefusal, type TransitionEvent } from "kubeloop/status";
import {
  LoadTest,
  LoadTestConditions,
  type LoadTestObject,
  type LoadTestStatus,
  Reasons,
  workerCount,
} from "./api.ts";
import { recordUpstreamEvents } from "./events.ts";
import { desiredJob, desiredServiceAccount, jobMatches, jobName, SCRIPT_KEY, workerSelector } from "./job.ts";
import { policyViolation, type WorkerPolicy } from "./policy.ts";
import { giveUpOnWorkers, NOT_STARTED_ANNOTATION } from "./progress.ts";
import { describeStatus, type Observation, recheckAfterMs, startTimeoutAt } from "./status.ts";
import type { WorkerTelemetry } from "./telemetry.ts";

type Context = ReconcileContext<LoadTestObject>;

/** What the operator hands every reconcile, beside its context. */
export interface LoadTestSettings {
  /** The telemetry settings of the workers, from the operator's environment. */
  readonly telemetry: WorkerTelemetry;
  /** What the administrator lets workers run and read, from the operator's environment. */
  readonly policy: WorkerPolicy;
  /** The cached worker pods of `namespace` matching `selector`. */
  readonly workerPods: (namespace: string, selector: string) => readonly PodObject[];
}

/**
 * How soon a Job that a quota or an admission check refused is tried again, at most: what changes
 * their mind (a quota raised, a policy changed) is not watched.
 */
const REFUSED_RETRY_MS = 10_000;

/** Reasons whose summary transition is worth a Warning event. */
const WARNING_REASONS: ReadonlySet<string> = new Set([
  Reasons.WorkersFailed,
  Reasons.JobFailed,
  Reasons.MissingTestScript,
  Reasons.JobConflict,
  Reasons.InvalidJob,
  Reasons.JobDeleted,
  Reasons.WorkerNotAllowed,
  Reasons.JobRefused,
  Reasons.WorkersNotStarted,
]);

/**
 * Converges one LoadTest. Returns a requeue only while the test has not completed: while workers
 * run, so that `status.duration` advances in coarse steps, and while it waits to start, at its
 * start timeout. A finished LoadTest is reconciled again only on a change.
 */
export async function reconcileLoadTest(
  ctx: Context,
  settings: LoadTestSettings,
): Promise<Action | undefined> {
  const loadTest = ctx.object;
  if (!loadTest || loadTest.metadata.deletionTimestamp) return undefined; // the Job is garbage-collected
  const observation = await observe(ctx, loadTest, settings);
  const written = await writeStatus(
    ctx,
    LoadTest,
    loadTest,
    LoadTestConditions,
    (draft, fresh) => describeStatus(draft, fresh, observation, ctx.clock.now()),
    { events: summaryEvent },
  );
  const { result, status } = written;
  if (result === "updated")
    recordUpstreamEvents(ctx, loadTest, written, workersOf(loadTest, status, settings));
  const deadline = startTimeoutAt(loadTest, observation);
  const recheck = result === "gone" ? undefined : recheckAfterMs(status, ctx.clock.now(), deadline);
  const retry = observation.kind === "refused" ? REFUSED_RETRY_MS : undefined;
  const after = [recheck, retry].filter((ms) => ms !== undefined);
  return after.length > 0 ? Action.requeueAfter(Math.min(...after)) : undefined;
}

/** The cached worker pods `status.selector` names (none before it names any). */
function workersOf(loadTest: LoadTestObject, status: LoadTestStatus, settings: LoadTestSettings) {
  const namespace = loadTest.metadata.namespace ?? "";
  return () => (status.selector ? settings.workerPods(namespace, status.selector) : []);
}

/**
 * Looks at the Job and, before there is one, the worker policy and the test script; creates the
 * Job when it can. A test that completed, or started, is never run (again) without its Job.
 */
async function observe(
  ctx: Context,
  loadTest: LoadTestObject,
  settings: LoadTestSettings,
): Promise<Observation> {
  const namespace = loadTest.metadata.namespace;
  const job = (await ctx.cache.reader(Job)).get(jobName(loadTest), namespace);
  if (job && !isControlledBy(job, loadTest)) return { kind: "conflict", message: conflictMessage(job) };
  if (job) return (await repair(ctx, loadTest, settings.telemetry)) ?? endIfNotStarted(ctx, loadTest, job);
  if (loadTest.status?.startTime || isTrue(loadTest.status?.conditions ?? [], "Completed"))
    return { kind: "jobDeleted" };
  const violation = policyViolation(loadTest.spec, settings.policy);
  if (violation) return { kind: "notAllowed", message: violation };
  const script = (await ctx.cache.reader(ConfigMap)).get(scriptName(loadTest), namespace);
  const missing = missingScriptMessage(loadTest, script);
  if (missing) return { kind: "missingScript", message: missing };
  return createJob(ctx, loadTest, settings.telemetry);
}

/**
 * The Job as observed; when its start timeout ran out with workers that never started and none
 * running, first suspended (its pending workers stop, no new one is created) and marked, so the
 * test completes without them.
 */
async function endIfNotStarted(ctx: Context, loadTest: LoadTestObject, job: JobObject): Promise<Observation> {
  if (!giveUpOnWorkers(job, loadTest.spec.startTimeoutSeconds, ctx.clock.now())) return { kind: "job", job };
  const at = new Date(ctx.clock.now()).toISOString().replace(/\.\d+Z$/, "Z");
  const patch = { metadata: { annotations: { [NOT_STARTED_ANNOTATION]: at } }, spec: { suspend: true } };
  const namespace = job.metadata.namespace;
  const ended = await ctx.client.patch(Job, jobName(loadTest), patch, { type: "merge", namespace });
  return { kind: "job", job: ended };
}

/**
 * Creates the workers' ServiceAccount, then the Job. A create rather than an apply: only the
 * request that really creates the Job records the `Created` event, even when the next reconcile
 * runs before the cache has seen the Job. The event names the label selector of the workers
 * (`status.selector` names it too, once they run).
 */
async function createJob(
  ctx: Context,
  loadTest: LoadTestObject,
  telemetry: WorkerTelemetry,
): Promise<Observation> {
  const job = desiredJob(loadTest, telemetry);
  setControllerReference(loadTest, job);
  let created: JobObject;
  try {
    await ensureWorkerAccount(ctx, loadTest);
    created = await ctx.client.create(Job, job);
  } catch (err) {
    if (err instanceof AlreadyExistsError) return { kind: "created" }; // not cached yet; its watch event comes
    return rejected(err);
  }
  const selector = workerSelector(created);
  const pods = selector ? `; its worker pods: kubectl get pods -l ${selector}` : "";
  const note = `created Job ${jobName(loadTest)} with ${workerCount(loadTest.spec)} workers${pods}`;
  ctx.recorder.normal(loadTest, "Created", "Create", note, { related: created });
  return { kind: "created" };
}

/**
 * Puts back what someone changed on the Job that may change (reported as drift). Returns an
 * observation only when that fails for good.
 */
async function repair(
  ctx: Context,
  loadTest: LoadTestObject,
  telemetry: WorkerTelemetry,
): Promise<Observation | undefined> {
  try {
    // Not exclusive: the pod template is immutable and defaulted, and Job-aware tools (a queue
    // admitting it through `spec.suspend`, say) legitimately add to the rest.
    const desired = desiredJob(loadTest, telemetry);
    await ensureWorkerAccount(ctx, loadTest);
    await ensureChild(ctx, loadTest, Job, desired, { matches: jobMatches, exclusive: false });
    return undefined;
  } catch (err) {
    return rejected(err);
  }
}

/**
 * The workers' ServiceAccount, given the image pull secrets of the namespace's `default` account
 * (which workers of the Artillery operator ran as) and nothing else of it.
 */
async function ensureWorkerAccount(ctx: Context, loadTest: LoadTestObject): Promise<void> {
  const namespaceDefault = (await ctx.cache.reader(ServiceAccount)).get(
    "default",
    loadTest.metadata.namespace,
  );
  const pullSecrets = namespaceDefault?.imagePullSecrets;
  const account = desiredServiceAccount(loadTest);
  await ensureChild(
    ctx,
    loadTest,
    ServiceAccount,
    pullSecrets ? { ...account, imagePullSecrets: pullSecrets } : account,
  );
}

/**
 * The observation of a write refused by the apiserver: for good (invalid), until someone acts (a
 * foreign child, a quota or an admission check). Any other error is thrown, to be retried.
 */
function rejected(err: unknown): Observation {
  if (err instanceof InvalidError)
    return { kind: "invalid", message: `the Job was rejected: ${err.message}` };
  if (err instanceof ChildConflictError) return { kind: "conflict", message: err.message };
  const refused = childRefusal(err);
  if (refused) return { kind: "refused", message: `the Job was refused: ${refused.message}` };
  throw err;
}

function scriptName(loadTest: LoadTestObject): string {
  return loadTest.spec.testScript.config.configMap;
}

function missingScriptMessage(
  loadTest: LoadTestObject,
  script: ConfigMapObject | undefined,
): string | undefined {
  const name = scriptName(loadTest);
  if (!script) {
    return `ConfigMap ${name} (spec.testScript.config.configMap) not found in namespace ${loadTest.metadata.namespace}; create it with the Artillery script under key ${SCRIPT_KEY}`;
  }
  if (script.data?.[SCRIPT_KEY] === undefined)
    return `ConfigMap ${name} has no key ${SCRIPT_KEY}; put the Artillery script under that key`;
  return undefined;
}

function conflictMessage(job: JobObject): string {
  const controller = controllerOf(job);
  const holder = controller
    ? `controlled by ${controller.kind} ${controller.name} (uid ${controller.uid})`
    : "not controlled by anyone";
  return `Job ${job.metadata.name} already exists and is ${holder}; it is left untouched. Delete or rename it, or give the LoadTest another name`;
}

/**
 * The event of a written transition: one per transition of the summary (started, succeeded,
 * failed, or waiting for help), a Warning for a failure or a wait; none for the dependents. Every
 * transition is still counted in the metrics.
 */
function summaryEvent(event: TransitionEvent): TransitionEvent | undefined {
  if (event.condition !== LoadTestConditions.summary) return undefined;
  return WARNING_REASONS.has(event.reason) ? { ...event, type: "Warning" } : event;
}
