/**
 * Transitions are history, and history goes out as events and metrics, not into status: this turns
 * the transitions of a condition set's `finish()` into events for humans and counts for dashboards.
 */
import type { EventRecorder, EventSubject } from "../events/index.ts";
import type { ConditionSet } from "./condition-set.ts";
import type { ConditionStatus } from "./conditions.ts";
import type { Transition } from "./diff.ts";
import { RECONCILING, STALLED } from "./kstatus.ts";

/** The recorder methods {@link recordTransitions} calls; an `EventRecorder` fits. */
export type TransitionRecorder = Pick<EventRecorder, "normal" | "warning">;

/** The metrics hook {@link recordTransitions} calls; a reconcile context's `report` fits. */
export interface TransitionMetrics {
  /** `kubeloop_condition_transitions_total{kind,condition,status}`: `status` is the new one. */
  conditionTransitioned(kind: string, condition: string, status: string): void;
}

/** Where {@link recordTransitions} reports; a `ReconcileContext` fits. */
export interface TransitionReporting {
  readonly recorder: TransitionRecorder;
  /** Counts each transition when given. */
  readonly report?: TransitionMetrics;
}

/** What a condition set must tell about its conditions to judge a transition. */
export type TransitionPolicy = Pick<ConditionSet, "summary" | "dependents">;

/** One event describing one transition. */
export interface TransitionEvent {
  /** The condition type that transitioned. */
  readonly condition: string;
  /** Its status before; absent when the condition is new (the object's first report of it). */
  readonly from?: ConditionStatus;
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
  /**
   * Decides each event {@link transitionEvents} describes (the summary's alone when it moved, else
   * one per transition): return it as is, changed (another `type`, `reason` or `note`), or
   * `undefined` to record none. Every transition is counted in the metrics either way.
   *
   * @example
   * ```ts
   * const options: TransitionEventOptions = {
   *   events: (e) => (e.condition === "Ready" ? e : undefined), // the summary's transitions only
   * };
   * ```
   */
  events?: (event: TransitionEvent) => TransitionEvent | undefined;
}

/** Reason of the event for a condition that was removed (it has no reason of its own any more). */
export const CONDITION_REMOVED_REASON = "ConditionRemoved";

/** How a status reads in a note when the condition is absent. */
const ABSENT = "Absent";

/**
 * The events for the `transitions` of one status write, in order: one event per change the write
 * made. When the summary moved, its event alone tells the write: the summary takes its reason and
 * message from the dependent that moved it (`Ready: True → False (SecretMissing): ...`), so an
 * event for that dependent, or for `Stalled` beside it, would say the same thing twice; it is a
 * `Warning` when any of the transitions it stands for is. Otherwise, one event per transition.
 * `Reconciling` is always left out: it only mirrors the summary and `Stalled`. A transition is a
 * `Warning` when it lands on the abnormal status: the summary `False`, a dependent at the status
 * its polarity calls abnormal, `Stalled=True`; anything else (`Unknown` included) is `Normal`.
 * Every transition is still counted ({@link recordTransitions}).
 *
 * @example
 * ```ts
 * transitionEvents(AppConditions, update.transitions);
 * // [{ condition: "Ready", type: "Normal", reason: "AllConditionsNormal",
 * //    note: "Ready: Unknown → True (AllConditionsNormal)" }]
 * ```
 */
export function transitionEvents(
  set: TransitionPolicy,
  transitions: readonly Transition[],
): TransitionEvent[] {
  const events = reported(transitions).map(
    (t): TransitionEvent => ({
      condition: t.type,
      ...(t.from === undefined ? {} : { from: t.from }),
      type: isAbnormal(set, t.type, t.to) ? "Warning" : "Normal",
      reason: t.reason ?? CONDITION_REMOVED_REASON,
      note: noteOf(t),
    }),
  );
  const summary = events.find((e) => e.condition === set.summary);
  if (!summary) return events;
  // A stall beside an Unknown summary is still a warning.
  return [events.some((e) => e.type === "Warning") ? { ...summary, type: "Warning" } : summary];
}

/**
 * Records {@link transitionEvents} about `regarding` through `reporting.recorder` (fire and forget,
 * as the recorder is; `options.events` may change or drop each: one per write that moved the
 * summary, else one per transition) and counts every transition but
 * `Reconciling` in `kubeloop_condition_transitions_total{kind,condition,status}` through
 * `reporting.report` (a removed condition counts with status `Absent`). Call it after the status carrying the transitions was written, so
 * the events describe what the object says; status keeps no history of its own. `writeStatus`
 * calls it for you.
 *
 * @example
 * ```ts
 * if ((await updateStatus(ctx.client, App, app, compute)) === "updated")
 *   recordTransitions(ctx, app, update.transitions, AppConditions);
 * ```
 */
export function recordTransitions(
  reporting: TransitionReporting,
  regarding: EventSubject,
  transitions: readonly Transition[],
  set: TransitionPolicy,
  options: TransitionEventOptions = {},
): void {
  const { recorder, report } = reporting;
  const action = options.action ?? "Reconcile";
  const decide = options.events ?? ((event: TransitionEvent) => event);
  for (const event of transitionEvents(set, transitions).map(decide)) {
    if (event?.type === "Warning") recorder.warning(regarding, event.reason, action, event.note);
    else if (event) recorder.normal(regarding, event.reason, action, event.note);
  }
  if (report) countTransitions(report, regarding, transitions);
}

/**
 * Counts each transition of `regarding` in `kubeloop_condition_transitions_total`, leaving out
 * `Reconciling` as {@link transitionEvents} does; a removed condition counts with status `Absent`.
 */
function countTransitions(
  metrics: TransitionMetrics,
  regarding: EventSubject,
  transitions: readonly Transition[],
): void {
  const kind = regarding.kind ?? "";
  for (const t of reported(transitions)) metrics.conditionTransitioned(kind, t.type, t.to ?? ABSENT);
}

/** The transitions worth telling: `Reconciling` only mirrors the summary and `Stalled`. */
function reported(transitions: readonly Transition[]): readonly Transition[] {
  return transitions.filter((t) => t.type !== RECONCILING);
}

/** A transition read back from the note of its event ({@link parseTransitionNote}). */
export interface NotedTransition {
  readonly condition: string;
  /** The status before, or `Absent`. */
  readonly from: string;
  /** The status after, or `Absent` when the condition was removed. */
  readonly to: string;
  readonly reason?: string;
  readonly message?: string;
}

const NOTE =
  /^(\S+): (True|False|Unknown|Absent) → (True|False|Unknown|Absent)(?: \((\S+)\))?(?:: ([\s\S]*))?$/;

/**
 * The transition an event's note tells, when the note is one {@link transitionEvents} wrote
 * (`Ready: False → True (AllConditionsNormal): 3/3 ready`); undefined for any other note.
 *
 * @example
 * ```ts
 * parseTransitionNote("Ready: Unknown → True (AllConditionsNormal)");
 * // { condition: "Ready", from: "Unknown", to: "True", reason: "AllConditionsNormal" }
 * ```
 */
export function parseTransitionNote(note: string): NotedTransition | undefined {
  const match = NOTE.exec(note);
  if (!match) return undefined;
  const [, condition = "", from = "", to = "", reason, message] = match;
  return { condition, from, to, ...(reason ? { reason } : {}), ...(message ? { message } : {}) };
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
