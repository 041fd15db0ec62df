/**
 * What a LoadTest's Job says about its workers, read defensively: Job conditions are matched by
 * type *and* status, in any order, and the interim `FailureTarget` / `SuccessCriteriaMet` are not
 * taken for the end (pods may still be running or terminating then). Pure functions.
 */
import type { JobObject } from "kubeloop";
import type { BuiltinCondition } from "kubeloop/api";

/** How far the workers are. */
export type Outcome = "starting" | "running" | "succeeded" | "workersFailed" | "jobFailed";

/** The workers' progress as one Job shows it. */
export interface JobProgress {
  readonly outcome: Outcome;
  /** Workers of the Job (`spec.completions`). */
  readonly count: number;
  readonly active: number;
  readonly succeeded: number;
  readonly failed: number;
  /** Indexes of failed workers, as the Job lists them (`"1,3"`, `"2-4"`); empty when none. */
  readonly failedIndexes: string;
  readonly startTime?: string;
  /** When the last worker finished; set exactly when the outcome is final. */
  readonly completionTime?: string;
  /** The terminal Job condition, when the outcome is final. */
  readonly terminal?: BuiltinCondition;
  readonly image?: string;
}

/** The condition of `type` when its status is True; a False or Unknown one counts as absent. */
export function trueCondition(job: JobObject, type: string): BuiltinCondition | undefined {
  return job.status?.conditions?.find((c) => c.type === type && c.status === "True");
}

/** Reads a Job's progress. Only `Complete=True` or `Failed=True` end it: both come once every pod is terminal. */
export function jobProgress(job: JobObject): JobProgress {
  const status = job.status ?? {};
  const base = {
    count: job.spec.completions ?? 1,
    active: status.active ?? 0,
    succeeded: status.succeeded ?? 0,
    failed: status.failed ?? 0,
    failedIndexes: status.failedIndexes ?? "",
    ...(status.startTime ? { startTime: status.startTime } : {}),
    ...(imageOf(job) ? { image: imageOf(job) } : {}),
  };
  const failed = trueCondition(job, "Failed");
  const complete = trueCondition(job, "Complete");
  const terminal = failed ?? complete;
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

function finalOutcome(failedWorkers: number, jobFailed: boolean): Outcome {
  if (failedWorkers > 0) return "workersFailed";
  return jobFailed ? "jobFailed" : "succeeded";
}

function imageOf(job: JobObject): string | undefined {
  return job.spec.template.spec.containers[0]?.image;
}

/** Whole seconds between two RFC 3339 times (never negative). */
export function secondsBetween(from: string, to: string | number): number {
  const end = typeof to === "number" ? to : Date.parse(to);
  return Math.max(0, Math.floor((end - Date.parse(from)) / 1000));
}

/** A duration in hours, minutes and seconds without zero units: `0s`, `45s`, `1m30s`, `2h`, `1h5s`. */
export function formatDuration(totalSeconds: number): string {
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  const parts = [hours ? `${hours}h` : "", minutes ? `${minutes}m` : "", seconds ? `${seconds}s` : ""];
  return parts.join("") || "0s";
}
