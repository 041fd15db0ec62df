/**
 * Transitions are history, and history goes out as events, not into status: this turns the
 * transitions of a condition set's `finish()` into events for humans.
 */
import type { EventRecorder, EventSubject } from "../events/index.ts";
import type { ConditionSet } from "./condition-set.ts";
import type { ConditionStatus } from "./conditions.ts";
import type { Transition } from "./diff.ts";
import { RECONCILING, STALLED } from "./kstatus.ts";

/** The recorder methods {@link recordTransitions} calls; an `EventRecorder` fits. */
export type TransitionRecorder = Pick<EventRecorder, "normal" | "warning">;

/** What a condition set must tell about its conditions to judge a transition. */
export type TransitionPolicy = Pick<ConditionSet, "summary" | "dependents">;

/** One event describing one transition. */
export interface TransitionEvent {
  /** `Warning` when the condition moved to its abnormal status, else `Normal`. */
  readonly type: "Normal" | "Warning";
  /** The condition's reason after the transition, or {@link CONDITION_REMOVED_REASON}. */
  readonly reason: string;
  /** `Ready: False → True (AllConditionsNormal): message`. */
  readonly note: string;
}

/** Options of {@link recordTransitions}. */
export interface TransitionEventOptions {
  /** The events' `action`: what the controller did. Default `Reconcile`. */
  action?: string;
}

/** Reason of the event for a condition that was removed (it has no reason of its own any more). */
export const CONDITION_REMOVED_REASON = "ConditionRemoved";

/** How a status reads in a note when the condition is absent. */
const ABSENT = "Absent";

/**
 * The events for `transitions`, one per transition, in order. `Reconciling` is left out: it only
 * mirrors the summary (and `Stalled`), whose own transitions say the same. A transition is a
 * `Warning` when it lands on the abnormal status: the summary `False`, a dependent at the status its
 * polarity calls abnormal, `Stalled=True`; anything else (`Unknown` included) is `Normal`.
 *
 * @example
 * ```ts
 * transitionEvents(AppConditions, update.transitions);
 * // [{ type: "Normal", reason: "AllConditionsNormal", note: "Ready: Unknown → True (AllConditionsNormal)" }]
 * ```
 */
export function transitionEvents(
  set: TransitionPolicy,
  transitions: readonly Transition[],
): TransitionEvent[] {
  return transitions
    .filter((t) => t.type !== RECONCILING)
    .map((t) => ({
      type: isAbnormal(set, t.type, t.to) ? "Warning" : "Normal",
      reason: t.reason ?? CONDITION_REMOVED_REASON,
      note: noteOf(t),
    }));
}

/**
 * Records {@link transitionEvents} about `regarding` through `recorder` (fire and forget, as the
 * recorder is). Call it after the status carrying the transitions was written, so the events
 * describe what the object says; status keeps no history of its own.
 *
 * @example
 * ```ts
 * if ((await updateStatus(ctx.client, App, app, compute)) === "updated")
 *   recordTransitions(ctx.recorder, app, update.transitions, AppConditions);
 * ```
 */
export function recordTransitions(
  recorder: TransitionRecorder,
  regarding: EventSubject,
  transitions: readonly Transition[],
  set: TransitionPolicy,
  options: TransitionEventOptions = {},
): void {
  const action = options.action ?? "Reconcile";
  for (const event of transitionEvents(set, transitions)) {
    if (event.type === "Warning") recorder.warning(regarding, event.reason, action, event.note);
    else recorder.normal(regarding, event.reason, action, event.note);
  }
}

function noteOf(t: Transition): string {
  const change = `${t.type}: ${t.from ?? ABSENT} → ${t.to ?? ABSENT}`;
  if (t.to === undefined) return change;
  return t.message ? `${change} (${t.reason}): ${t.message}` : `${change} (${t.reason})`;
}

function isAbnormal(set: TransitionPolicy, type: string, to: ConditionStatus | undefined): boolean {
  if (type === set.summary) return to === "False";
  if (type === STALLED) return to === "True";
  const dependent = set.dependents.find((d) => d.type === type);
  if (!dependent || to === undefined || to === "Unknown") return false;
  return to === (dependent.polarity === "normal-true" ? "False" : "True");
}
