/**
 * The results kstatus's rules return, built as `cli-utils` builds them: an InProgress or Failed
 * result carries the reason of the `Reconciling` or `Stalled` condition cli-utils synthesizes, a
 * Current one carries no reason.
 */
import type { Clock } from "../../clock/index.ts";
import type { KStatus, KStatusResult, KStatusSubject } from "../kstatus.ts";
import type { LooseCondition } from "./loose.ts";

/** A built-in kind's rule (`cli-utils` `GetConditionsFn`); the clock only matters to Pods. */
export type BuiltinRule = (obj: KStatusSubject, clock: Clock) => KStatusResult;

/** `Current` with `message`. */
export function current(message: string): KStatusResult {
  return { status: "Current", message };
}

/** `InProgress` because of `reason`. */
export function inProgress(reason: string, message: string): KStatusResult {
  return { status: "InProgress", reason, message };
}

/** `Failed` because of `reason`. */
export function failed(reason: string, message: string): KStatusResult {
  return { status: "Failed", reason, message };
}

/** `status` with `condition`'s reason (when it has one) and message (empty when it has none). */
export function fromCondition(status: KStatus, condition: LooseCondition): KStatusResult {
  const message = typeof condition.message === "string" ? condition.message : "";
  return typeof condition.reason === "string"
    ? { status, reason: condition.reason, message }
    : { status, message };
}

/** `InProgress` with `reason` and `"<label>: <have>/<want>"` when `have` falls short of `want`. */
export function shortfall(
  label: string,
  reason: string,
  have: number,
  want: number,
): KStatusResult | undefined {
  return have < want ? inProgress(reason, `${label}: ${have}/${want}`) : undefined;
}

/** `InProgress` with reason `ExtraPods` while more replicas exist than the spec asks for. */
export function extraPods(replicas: number, wanted: number): KStatusResult | undefined {
  return replicas > wanted ? inProgress("ExtraPods", `Pending termination: ${replicas - wanted}`) : undefined;
}
