/**
 * What a LoadTest's Job says about its workers, read defensively: Job conditions are matched by
 * type *and* status, in any order, and the interim `FailureTarget` / `SuccessCriteriaMet` are not
 * taken for the end (pods may still be running or terminating then). Pure functions.
 */
import type { JobObject } from "kubeloop";
import type { JobCondition } from "kubeloop/api/batch/v1";
import { workerSelector } from "./job.ts";

/** How far the workers are. */
export type Outcome = "starting" | "running" | "succeeded" | "workersFailed" | "jobFailed" | "notStarted";

/**
 * The Job annotation the operator sets, with the time, when it suspends a Job whose workers had
 * not all started by the start timeout: the test is over, whatever the Job does next.
 */
export const NOT_STARTED_ANNOTATION = "loadtest.kubeloop.dev/workers-not-started";

/** The workers' progress as one Job shows it. */
export interface JobProgress {
  readonly outcome: Outcome;
  /** Workers of the Job (`spec.completions`). */
  readonly count: number;
  /** Workers whose pods are active: running, or Pending (the Job's `active`). */
  readonly active: number;
  /**
   * Workers running: their pods are ready (the Job's `ready`; the Job controller writes it since
   * Kubernetes 1.24). `active` less these are Pending: not started.
   */
  readonly running: number;
  readonly succeeded: number;
  readonly failed: number;
  /** Indexes of failed workers, as the Job lists them (`"1,3"`, `"2-4"`); empty when none. */
  readonly failedIndexes: string;
  readonly startTime?: string;
  /** When the last worker finished; set exactly when the outcome is final. */
  readonly completionTime?: string;
  /** The terminal Job condition, when the outcome is final. */
  readonly terminal?: JobCondition;
  readonly image?: string;
  /** The label selector of the worker pods. */
  readonly selector?: string;
}

/** The condition of `type` when its status is True; a False or Unknown one counts as absent. */
export function trueCondition(job: JobObject, type: string): JobCondition | undefined {
  return job.status?.conditions?.find((c) => c.type === type && c.status === "True");
}

/** Reads a Job's progress. Only `Complete=True` or `Failed=True` end it: both come once every pod is terminal. */
export function jobProgress(job: JobObject): JobProgress {
  const status = job.status ?? {};
  const image = imageOf(job);
  const selector = workerSelector(job);
  const base = {
    count: job.spec?.completions ?? 1,
    active: status.active ?? 0,
    running: status.ready ?? 0,
    succeeded: status.succeeded ?? 0,
    failed: status.failed ?? 0,
    failedIndexes: status.failedIndexes ?? "",
    ...(status.startTime ? { startTime: status.startTime } : {}),
    ...(image ? { image } : {}),
    ...(selector ? { selector } : {}),
  };
  const failed = trueCondition(job, "Failed");
  const complete = trueCondition(job, "Complete");
  const terminal = failed ?? complete;
  const givenUp = job.metadata.annotations?.[NOT_STARTED_ANNOTATION];
  if (!terminal && givenUp) return { ...base, outcome: "notStarted", completionTime: givenUp };
  if (!terminal) return { ...base, outcome: status.startTime ? "running" : "starting" };
  const completionTime = failed
    ? (failed.lastTransitionTime ?? status.completionTime)
    : (status.completionTime ?? complete?.lastTransitionTime);
  return {
    ...base,
    outcome: finalOutcome(base.failed, failed !== undefined),
    terminal,
    ...(completionTime ? { completionTime } : {}),
  };
}

/**
 * When the workers of a running Job must all have started (ms since the epoch): the start timeout
 * after the Job controller started the Job (a Job held suspended, by a queue say, has not started).
 * Undefined when every worker has started or the Job is over.
 */
export function workersStartDeadline(job: JobObject, timeoutSeconds: number): number | undefined {
  const progress = jobProgress(job);
  if (progress.outcome !== "running" || !progress.startTime) return undefined;
  if (notStarted(progress) === 0) return undefined;
  return Date.parse(progress.startTime) + timeoutSeconds * 1000;
}

/**
 * Whether to end a running test without the workers that have not started: its start deadline has
 * passed and none of its workers is running (one that runs is waited for; it ends by itself).
 */
export function giveUpOnWorkers(job: JobObject, timeoutSeconds: number, now: number): boolean {
  const deadline = workersStartDeadline(job, timeoutSeconds);
  return deadline !== undefined && now >= deadline && jobProgress(job).running === 0;
}

/**
 * Workers that have not started: neither running nor finished. Their pods are Pending (being
 * scheduled, or no node fits them), or not created (a quota on pods).
 */
export function notStarted(
  progress: Pick<JobProgress, "count" | "running" | "succeeded" | "failed">,
): number {
  return Math.max(0, progress.count - progress.running - progress.succeeded - progress.failed);
}

function finalOutcome(failedWorkers: number, jobFailed: boolean): Outcome {
  if (failedWorkers > 0) return "workersFailed";
  return jobFailed ? "jobFailed" : "succeeded";
}

function imageOf(job: JobObject): string | undefined {
  return job.spec?.template.spec?.containers[0]?.image;
}

/** Whole seconds between two RFC 3339 times (never negative). */
export function secondsBetween(from: string, to: string | number): number {
  const end = typeof to === "number" ? to : Date.parse(to);
  return Math.max(0, Math.floor((end - Date.parse(from)) / 1000));
}

/**
 * A duration as the Artillery operator showed it in `status.duration`: Kubernetes'
 * `duration.HumanDuration` (k8s.io/apimachinery/pkg/util/duration, also `kubectl`'s AGE), whose
 * precision falls as the duration grows: seconds up to 2 minutes (`90s`), then `2m5s` under 10
 * minutes, `15m` under 3 hours, `3h20m` under 8 hours, `30h` under 2 days, `3d4h` under 8 days,
 * `30d` under 2 years, `2y10d` under 8 years, then `9y`.
 */
export function humanDuration(totalSeconds: number): string {
  const seconds = Math.max(0, Math.floor(totalSeconds));
  const minutes = Math.floor(seconds / 60);
  const hours = Math.floor(minutes / 60);
  const days = Math.floor(hours / 24);
  const years = Math.floor(days / 365);
  if (seconds < 120) return `${seconds}s`;
  if (minutes < 10) return units(minutes, "m", seconds % 60, "s");
  if (minutes < 180) return `${minutes}m`;
  if (hours < 8) return units(hours, "h", minutes % 60, "m");
  if (hours < 48) return `${hours}h`;
  if (days < 8) return units(days, "d", hours % 24, "h");
  if (days < 730) return `${days}d`;
  if (days < 2920) return units(years, "y", days % 365, "d");
  return `${years}y`;
}

/** `2m5s`, or `2m` when the smaller unit is zero. */
function units(large: number, largeUnit: string, small: number, smallUnit: string): string {
  return small ? `${large}${largeUnit}${small}${smallUnit}` : `${large}${largeUnit}`;
}
