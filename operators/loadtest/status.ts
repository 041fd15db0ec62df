/**
 * A LoadTest's status, computed from observation alone: what the controller saw of its Job and
 * test-script ConfigMap becomes the status fields and the reports of `Progressing` and
 * `Completed`. Times come from the Job, so a wiped status is written back the same. Pure: the
 * time is passed in.
 */

import { isTrue, type JobObject } from "kubeloop";
import type { ConditionReport, StallOptions, StatusFields } from "kubeloop/status";
import {
  type LoadTestConditions,
  type LoadTestObject,
  type LoadTestStatus,
  Reasons,
  workerCount,
} from "./api.ts";
import {
  humanDuration,
  type JobProgress,
  jobProgress,
  notStarted,
  secondsBetween,
  workersStartDeadline,
} from "./progress.ts";

/** While workers run, `status.duration` advances in steps of this many seconds (one write per step). */
export const DURATION_STEP_SECONDS = 30;

/** What a reconcile observed about a LoadTest's Job and test script. */
export type Observation =
  /** The LoadTest's own Job. */
  | { readonly kind: "job"; readonly job: JobObject }
  /** The Job was just created and is not in the cache yet. */
  | { readonly kind: "created" }
  /** The test script cannot be mounted; `message` says why and what to do. */
  | { readonly kind: "missingScript"; readonly message: string }
  /** A Job with the LoadTest's name exists that this LoadTest does not control. */
  | { readonly kind: "conflict"; readonly message: string }
  /** The apiserver rejected the Job built from the spec: the test cannot run. */
  | { readonly kind: "invalid"; readonly message: string }
  /** The operator's worker policy refuses the image or the references the spec asks for. */
  | { readonly kind: "notAllowed"; readonly message: string }
  /** A quota or an admission check refused the Job; it is tried again until the start timeout. */
  | { readonly kind: "refused"; readonly message: string }
  /** The Job is gone although the test had started: it is not run twice. */
  | { readonly kind: "jobDeleted" };

/** A draft of the LoadTest conditions, as `writeStatus` hands it over. */
export type LoadTestDraft = ReturnType<(typeof LoadTestConditions)["begin"]>;

/** The dependents' reports, the fields beside the conditions, and an optional stall. */
interface Assessment {
  readonly fields: StatusFields<LoadTestObject>;
  readonly progressing: ConditionReport;
  readonly completed: ConditionReport;
  readonly stall?: { reason: string; message: string; options?: StallOptions };
}

/**
 * Describes the status of `fresh` from `observation` at `now` (ms): reports `Progressing` and
 * `Completed` on `draft`, declares a stall when the test cannot go on, and returns the status fields
 * beside the conditions. Shaped for `writeStatus`.
 */
export function describeStatus(
  draft: LoadTestDraft,
  fresh: LoadTestObject,
  observation: Observation,
  now: number,
): StatusFields<LoadTestObject> {
  const { fields, progressing, completed, stall } = assess(fresh, observation, now);
  draft.set("Progressing", progressing).set("Completed", completed);
  if (stall) draft.stalled(stall.reason, stall.message, stall.options);
  return fields;
}

/**
 * When the LoadTest is to be looked at again, in ms from `now`: while `status` says the workers
 * run (`Progressing=True` since `startTime`), when `duration` reaches its next step; while it
 * waits to start, when its start timeout runs out (`deadline`, from {@link startTimeoutAt}; not
 * when it has run out already). Otherwise undefined: a finished LoadTest changes only when something
 * it watches does.
 */
export function recheckAfterMs(
  status: LoadTestStatus,
  now: number,
  deadline: number | undefined,
): number | undefined {
  if (isTrue(status.conditions ?? [], "Completed")) return undefined;
  const step = status.startTime && isTrue(status.conditions ?? [], "Progressing");
  const untilStep = step ? untilNextStep(status.startTime ?? "", now) : undefined;
  // A deadline already past is not polled: what ends the wait then (the last running worker
  // finishing) changes the Job, whose watch brings the LoadTest back.
  const untilDeadline = deadline === undefined || deadline < now ? undefined : deadline - now + 500;
  const times = [untilStep, untilDeadline].filter((t) => t !== undefined);
  return times.length > 0 ? Math.min(...times) : undefined;
}

/**
 * The observations of a test that waits, before any Job, for something outside it, and the reason
 * each is told with: until its start timeout, then it completes with that reason.
 */
const WAITING_REASONS = {
  missingScript: Reasons.MissingTestScript,
  conflict: Reasons.JobConflict,
  notAllowed: Reasons.WorkerNotAllowed,
  refused: Reasons.JobRefused,
} as const;

/** An observation of a test that waits before any Job. */
type Waiting = Extract<Observation, { kind: keyof typeof WAITING_REASONS }>;

function isWaiting(observation: Observation): observation is Waiting {
  return observation.kind in WAITING_REASONS;
}

/**
 * When the test stops waiting for its workers to start, as observed (ms since the epoch): for a
 * running Job, the start timeout after the Job started; before any Job, the start timeout after
 * the LoadTest's creation. Undefined when it waits for nothing.
 */
export function startTimeoutAt(loadTest: LoadTestObject, observation: Observation): number | undefined {
  if (observation.kind === "job")
    return workersStartDeadline(observation.job, loadTest.spec.startTimeoutSeconds);
  return isWaiting(observation) ? startDeadline(loadTest) : undefined;
}

/** When a LoadTest that has no Job yet stops waiting for one (ms): its start timeout after its creation. */
function startDeadline(loadTest: LoadTestObject): number {
  const created = Date.parse(loadTest.metadata.creationTimestamp ?? "") || 0;
  return created + loadTest.spec.startTimeoutSeconds * 1000;
}

function assess(fresh: LoadTestObject, observation: Observation, now: number): Assessment {
  if (isWaiting(observation))
    return waiting(fresh, WAITING_REASONS[observation.kind], observation.message, now);
  switch (observation.kind) {
    case "job":
      return fromJob(jobProgress(observation.job), observation.job.metadata.name ?? "", now);
    case "invalid":
      return beforeStart(fresh, Reasons.InvalidJob, observation.message);
    case "created":
      return beforeJobSeen(fresh, `created Job ${fresh.metadata.name}; workers are starting`);
    case "jobDeleted":
      return afterJobDeleted(fresh);
  }
}

/** Counters before any Job exists. */
function emptyFields(fresh: LoadTestObject): StatusFields<LoadTestObject> {
  return { active: 0, succeeded: 0, failed: 0, completions: `0/${workerCount(fresh.spec)}` };
}

/** The Job was just created: no worker has started yet. */
function beforeJobSeen(fresh: LoadTestObject, message: string): Assessment {
  const reason = Reasons.WorkersStarting;
  return {
    fields: emptyFields(fresh),
    progressing: { status: "True", reason, message },
    completed: { status: "False", reason, message },
  };
}

/**
 * Stalled before the test ran: it waits for outside help, and has neither succeeded nor failed,
 * until its start timeout runs out; then it completes without having run.
 */
function waiting(fresh: LoadTestObject, reason: string, message: string, now: number): Assessment {
  if (now >= startDeadline(fresh)) {
    const timeout = `the start timeout (spec.startTimeoutSeconds: ${fresh.spec.startTimeoutSeconds}) ran out`;
    return beforeStart(fresh, reason, `${timeout}, so the test completed without running: ${message}`);
  }
  return {
    fields: emptyFields(fresh),
    progressing: { status: "False", reason, message },
    completed: { status: "False", reason, message },
    stall: { reason, message, options: { summary: "Unknown" } },
  };
}

/** Completed before any worker ran: the test cannot run, now or later. */
function beforeStart(fresh: LoadTestObject, reason: string, message: string): Assessment {
  return {
    fields: emptyFields(fresh),
    progressing: { status: "False", reason, message },
    completed: { status: "True", reason, message },
    stall: { reason, message },
  };
}

function fromJob(progress: JobProgress, jobName: string, now: number): Assessment {
  const fields = jobFields(progress, now);
  switch (progress.outcome) {
    case "starting":
    case "running":
      return running(progress, fields);
    case "succeeded":
      return finished(fields, progress, Reasons.Succeeded, `all ${progress.count} workers succeeded`);
    case "workersFailed":
      return finished(fields, progress, Reasons.WorkersFailed, workersFailedMessage(progress));
    case "jobFailed":
      return finished(fields, progress, Reasons.JobFailed, jobFailedMessage(progress, jobName));
    case "notStarted":
      return finished(fields, progress, Reasons.WorkersNotStarted, notStartedMessage(progress, jobName));
  }
}

function jobFields(progress: JobProgress, now: number): StatusFields<LoadTestObject> {
  const { startTime, completionTime } = progress;
  const elapsed = startTime ? secondsBetween(startTime, completionTime ?? now) : undefined;
  const shown = elapsed === undefined || completionTime ? elapsed : stepDown(elapsed);
  return {
    active: progress.active,
    succeeded: progress.succeeded,
    failed: progress.failed,
    completions: `${progress.succeeded}/${progress.count}`,
    ...(progress.failedIndexes ? { failedIndexes: progress.failedIndexes } : {}),
    ...(startTime ? { startTime } : {}),
    ...(completionTime ? { completionTime } : {}),
    ...(shown === undefined ? {} : { duration: humanDuration(shown) }),
    ...(progress.image ? { image: progress.image } : {}),
    ...(progress.selector ? { selector: progress.selector } : {}),
  };
}

function stepDown(seconds: number): number {
  return seconds - (seconds % DURATION_STEP_SECONDS);
}

/**
 * The Job runs: `WorkersRunning` while a worker runs or all have started, `WorkersStarting` while
 * none runs and some have not started (their pods Pending, or not created yet).
 */
function running(progress: JobProgress, fields: StatusFields<LoadTestObject>): Assessment {
  const message = runningMessage(progress);
  const since = progress.startTime ? { lastTransitionTime: progress.startTime } : {};
  const starting = progress.running === 0 && notStarted(progress) > 0;
  const reason = starting ? Reasons.WorkersStarting : Reasons.WorkersRunning;
  return {
    fields,
    progressing: { status: "True", reason, message, ...since },
    completed: { status: "False", reason, message },
  };
}

/** Milliseconds until the elapsed time reaches the next duration step (plus a little slack). */
function untilNextStep(startTime: string, now: number): number {
  const elapsedMs = Math.max(0, now - Date.parse(startTime));
  const stepMs = DURATION_STEP_SECONDS * 1000;
  return stepMs - (elapsedMs % stepMs) + 500;
}

function finished(
  fields: StatusFields<LoadTestObject>,
  progress: JobProgress,
  reason: string,
  message: string,
): Assessment {
  const at = progress.completionTime ? { lastTransitionTime: progress.completionTime } : {};
  return {
    fields,
    progressing: { status: "False", reason, message, ...at },
    completed: { status: "True", reason, message, ...at },
    ...(reason === Reasons.Succeeded ? {} : { stall: { reason, message } }),
  };
}

/**
 * The Job is gone after the test started. A completed test keeps what it reported; an unfinished
 * one ends here (its workers' results are lost) and is not started again.
 */
function afterJobDeleted(fresh: LoadTestObject): Assessment {
  const stored = fresh.status ?? {};
  const { conditions: _conditions, observedGeneration: _generation, ...fields } = stored;
  const completed = stored.conditions?.find((c) => c.type === "Completed" && c.status === "True");
  const progressing = stored.conditions?.find((c) => c.type === "Progressing");
  if (completed && progressing) return kept(fields, completed, progressing);
  const message = `Job ${fresh.metadata.name} was deleted while workers ran; delete and recreate the LoadTest to run the test again`;
  const reason = Reasons.JobDeleted;
  return {
    fields: { ...fields, active: 0 },
    progressing: { status: "False", reason, message },
    completed: { status: "False", reason, message },
    stall: { reason, message },
  };
}

/**
 * What a completed test reported, kept once its Job is gone. The Artillery operator wrote
 * conditions without reasons or messages: a status it left gets them from its counts.
 */
function kept(
  fields: StatusFields<LoadTestObject>,
  completed: ConditionReport,
  progressing: ConditionReport,
) {
  const reason = completed.reason || (fields.failed ? Reasons.WorkersFailed : Reasons.Succeeded);
  const message = completed.message || "completed under the Artillery operator";
  const report = (c: ConditionReport) => ({
    status: c.status,
    reason: c.reason || reason,
    message: c.message || message,
  });
  const stall = reason === Reasons.Succeeded ? {} : { stall: { reason, message } };
  return { fields, progressing: report(progressing), completed: report(completed), ...stall };
}

/** `1/4 workers succeeded, 2 running, 1 not started`: a Pending worker has not started. */
function runningMessage(p: JobProgress): string {
  const waiting = notStarted(p);
  const pending = waiting ? `, ${waiting} not started` : "";
  const failed = p.failed ? `, ${p.failed} failed (indexes ${p.failedIndexes})` : "";
  return `${p.succeeded}/${p.count} workers succeeded, ${p.running} running${pending}${failed}`;
}

function workersFailedMessage(p: JobProgress): string {
  return `${p.failed} of ${p.count} workers failed (indexes ${p.failedIndexes || "unknown"}); ${p.succeeded} succeeded`;
}

function notStartedMessage(p: JobProgress, jobName: string): string {
  const missing = p.count - p.succeeded - p.failed;
  return `${missing} of ${p.count} workers had not started when the start timeout (spec.startTimeoutSeconds) ran out; the test completed without them (${p.succeeded} succeeded, ${p.failed} failed) and Job ${jobName} is suspended: kubectl describe job ${jobName} tells why they could not start`;
}

function jobFailedMessage(p: JobProgress, jobName: string): string {
  const why = [p.terminal?.reason, p.terminal?.message].filter(Boolean).join(": ");
  return `Job ${jobName} failed${why ? ` (${why})` : ""}; ${p.succeeded} of ${p.count} workers succeeded`;
}
