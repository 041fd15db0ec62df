import type { ObjectMeta } from "../api/index.ts";
import { type Clock, systemClock } from "../clock/index.ts";
import type { Condition } from "./conditions.ts";
import { type StatusDraft, startDraft } from "./draft.ts";
import { InvalidConditionError } from "./errors.ts";
import { RECONCILING, STALLED } from "./kstatus.ts";
import { defaultRollUp, type Polarity, type RollUp } from "./rollup.ts";
import { validateConditionType } from "./validation.ts";

/** The summary condition: `Ready` for long-running kinds, `Succeeded` or `Completed` for run-to-completion kinds. */
export type SummaryType = "Ready" | "Succeeded" | "Completed";

/** Derives a kind's `status.phase` from its conditions. The phase is output only, never read back. */
export type PhaseFunction<P extends string> = (conditions: readonly Condition[]) => P;

/** A dependent condition of a set, with its polarity. */
export interface DependentCondition<D extends string = string> {
  readonly type: D;
  readonly polarity: Polarity;
}

/** The status fields a {@link ConditionSet} reads when it begins. */
export interface StoredStatus {
  conditions?: readonly Condition[];
  observedGeneration?: number;
  phase?: string;
}

/** An object whose status a {@link ConditionSet} manages. */
export interface StatusSubject {
  metadata: ObjectMeta;
  status?: StoredStatus;
}

/** How a kind declares its conditions; see {@link defineConditionSet}. */
export interface ConditionSetOptions<D extends string, P extends string> {
  /** The condition that says whether the object is fine. */
  summary: SummaryType;
  /** The conditions the controller reports, in declaration order, each with its polarity. */
  dependents: Readonly<Record<D, Polarity>>;
  /** Replaces {@link defaultRollUp}, e.g. for a run-to-completion kind. */
  rollUp?: RollUp<D>;
  /** Derives `status.phase` from the conditions; without it no phase is written. */
  phase?: PhaseFunction<P>;
}

/**
 * The conditions one controller owns on one kind: its dependent conditions, the summary rolled up
 * from them, and kstatus's `Reconciling` / `Stalled`. Start each reconcile with {@link ConditionSet.begin}.
 */
export interface ConditionSet<D extends string = string, P extends string = string> {
  /** The summary condition type. */
  readonly summary: SummaryType;
  /** Every type the set writes: the summary, the dependents in declaration order, `Reconciling`, `Stalled`. */
  readonly types: readonly string[];
  /** The dependent conditions in declaration order. */
  readonly dependents: readonly DependentCondition<D>[];
  /** The roll-up that computes the summary. */
  readonly rollUp: RollUp<D>;
  /** The phase function, when the kind declares one. */
  readonly phase: PhaseFunction<P> | undefined;
  /**
   * Starts a reconcile's status from `obj`'s stored status (which is copied, never mutated).
   * `clock` stamps transition times.
   */
  begin(obj: StatusSubject, clock?: Clock): StatusDraft<D, P>;
}

const RESERVED_RULE = "the summary, Reconciling and Stalled are written by the set and cannot be dependents";

/**
 * Declares the conditions a kind's controller owns.
 *
 * `finish()` writes the summary from the roll-up (or `False` with the reason the draft declared:
 * a stall, or a failure being retried), then keeps kstatus consistent: summary `True` removes
 * `Reconciling` and `Stalled`; otherwise a stall gives `Stalled=True` and no `Reconciling`, a
 * declared failure `Reconciling=True` with reason `ProgressingWithRetry`, and anything else
 * `Reconciling=True` with the summary's reason. Every condition written carries
 * `observedGeneration = metadata.generation`, and so does `status.observedGeneration`. Conditions of
 * types the set does not declare are left as they are: another controller may own them.
 *
 * A dependent reported only for an older generation reads as not reported (Unknown) in the roll-up.
 * The status is rebuilt from observation each reconcile: report every dependent each time.
 *
 * Throws {@link InvalidConditionError} on an invalid or reserved dependent type, an unknown
 * polarity or summary, or an empty set.
 *
 * @example
 * ```ts
 * const AppConditions = defineConditionSet({
 *   summary: "Ready",
 *   dependents: { ConfigValid: "normal-true", Available: "normal-true", Degraded: "normal-false" },
 *   phase: (conditions) => (isTrue(conditions, "Ready") ? "Running" : "Pending"),
 * });
 *
 * // in the reconciler
 * const status = AppConditions.begin(app, clock);
 * if (app.spec.replicas < 1) {
 *   status.set("ConfigValid", {
 *     status: "False",
 *     reason: "InvalidReplicas",
 *     message: "spec.replicas must be >= 1",
 *   });
 *   status.stalled("InvalidSpec", "fix spec.replicas to continue");
 * } else {
 *   status.set("ConfigValid", { status: "True", reason: "Valid" });
 *   status.set("Available", { status: "True", reason: "MinimumReplicasAvailable", message: "3/3 ready" });
 *   status.set("Degraded", { status: "False", reason: "AllReplicasHealthy" });
 * }
 * const next = status.finish(); // next.status to write, next.transitions for events and metrics
 * // writeStatus(ctx, App, app, AppConditions, (draft) => ...) does this from a fresh read, writes only
 * // on change and records the transitions it wrote
 * ```
 */
export function defineConditionSet<D extends string, P extends string = never>(
  options: ConditionSetOptions<D, P>,
): ConditionSet<D, P> {
  const summary = validSummary(options.summary);
  const dependents = validDependents(options.dependents, summary);
  const set: ConditionSet<D, P> = {
    summary,
    types: Object.freeze([summary, ...dependents.map((d) => d.type), RECONCILING, STALLED]),
    dependents,
    rollUp: options.rollUp ?? defaultRollUp,
    phase: options.phase,
    begin: (obj, clock = systemClock) => startDraft(set, obj, clock),
  };
  return Object.freeze(set);
}

function validSummary(summary: SummaryType): SummaryType {
  if (summary === "Ready" || summary === "Succeeded" || summary === "Completed") return summary;
  throw new InvalidConditionError(
    "set summary",
    summary,
    "the summary is Ready for long-running kinds, Succeeded or Completed for run-to-completion kinds",
    `"Ready"`,
  );
}

function validDependents<D extends string>(
  declared: Readonly<Record<D, Polarity>>,
  summary: SummaryType,
): readonly DependentCondition<D>[] {
  const dependents = (Object.entries(declared) as [D, Polarity][]).map(([type, polarity]) => {
    validateConditionType(type);
    if (type === summary || type === RECONCILING || type === STALLED) {
      throw new InvalidConditionError("set dependent", type, RESERVED_RULE, `{ Available: "normal-true" }`);
    }
    validatePolarity(type, polarity);
    return Object.freeze({ type, polarity });
  });
  if (dependents.length > 0) return Object.freeze(dependents);
  throw new InvalidConditionError(
    "set dependents",
    "{}",
    "a set needs at least one dependent condition to roll its summary up from",
    `{ Available: "normal-true" }`,
  );
}

function validatePolarity(type: string, polarity: unknown): void {
  if (polarity === "normal-true" || polarity === "normal-false") return;
  throw new InvalidConditionError(
    `polarity of ${type}`,
    polarity,
    `a polarity is "normal-true" (True is normal) or "normal-false" (False is normal)`,
    `"normal-true"`,
  );
}
