/**
 * The Artillery operator's events, recorded beside the transition events so that what finds the
 * workers or alerts through them keeps working: `Running` for each worker pod when the test
 * starts, then `Completed` (Normal) or `Failed` (Warning) when it completes. Both are told once,
 * from the status write that recorded the start or the completion.
 */
import type { PodObject } from "kubeloop";
import type { EventRecorder } from "kubeloop/events";
import type { StatusUpdate } from "kubeloop/status";
import { type LoadTestObject, type LoadTestStatus, Reasons } from "./api.ts";

/** A written status: what it says now, and the conditions' transitions written with it. */
export interface WrittenStatus {
  readonly status: LoadTestStatus;
  readonly update: StatusUpdate;
}

/**
 * Records the Artillery operator's events for a status just written over `before`'s: `Running`
 * for each of `workers` when the write recorded the start, `Completed` or `Failed` when it
 * recorded the completion.
 */
export function recordUpstreamEvents(
  ctx: { readonly recorder: Pick<EventRecorder, "normal" | "warning"> },
  before: LoadTestObject,
  written: WrittenStatus,
  workers: () => readonly PodObject[],
): void {
  if (!before.status?.startTime && written.status.startTime) {
    for (const pod of workers()) {
      const note = `Running Load Test worker pod: ${pod.metadata.name}`;
      ctx.recorder.normal(before, "Running", "Start", note, { related: pod });
    }
  }
  const completed = written.update.transitions.find((t) => t.type === "Completed" && t.to === "True");
  if (completed?.reason === Reasons.Succeeded)
    ctx.recorder.normal(before, "Completed", "Complete", "Load Test completed");
  else if (completed) ctx.recorder.warning(before, "Failed", "Complete", failedNote(completed));
}

/** The Artillery operator's note for failed workers; for a Job that failed otherwise, why. */
function failedNote(completed: { reason: string | undefined; message: string | undefined }): string {
  if (completed.reason === Reasons.WorkersFailed) return "Load Test completed with failed workers";
  return `Load Test failed: ${completed.message ?? completed.reason ?? "unknown reason"}`;
}
