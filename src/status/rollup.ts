import type { Condition, ConditionStatus } from "./conditions.ts";

/**
 * Which status of a dependent condition is the normal one: `normal-true` for conditions such as
 * `Available`, `normal-false` for conditions such as `Degraded` or `MemoryExhausted`.
 */
export type Polarity = "normal-true" | "normal-false";

/** A dependent's standing: at its normal status, at the other one, or Unknown / not reported. */
export type Health = "normal" | "abnormal" | "unknown";

/** A condition's status, reason and message, without its type (the set supplies it). */
export interface ConditionReport {
  status: ConditionStatus;
  reason: string;
  /** Defaults to `""`. */
  message?: string;
  /** Used only when the status changes; defaults to now. */
  lastTransitionTime?: string;
}

/** What a roll-up sees of one dependent condition. */
export interface DependentState<D extends string = string> {
  readonly type: D;
  readonly polarity: Polarity;
  /**
   * The condition as reported for the object's current generation; `undefined` when it was never
   * reported, or its `observedGeneration` is not the current one (stale, so it reads as Unknown).
   */
  readonly condition: Readonly<Condition> | undefined;
  readonly health: Health;
}

/** Computes the summary condition from the dependents, given in declaration order. */
export type RollUp<D extends string = string> = (dependents: readonly DependentState<D>[]) => ConditionReport;

/** Reason of a True summary computed by {@link defaultRollUp}. */
export const ALL_NORMAL_REASON = "AllConditionsNormal";
/** Reason of an Unknown summary computed by {@link defaultRollUp} when a dependent was not reported. */
export const NOT_REPORTED_REASON = "NotReported";

/**
 * The default roll-up: `False` when any dependent is abnormal (reason and message of the first
 * abnormal one in declaration order); otherwise `Unknown` when any is Unknown or not reported (from
 * the first such one); otherwise `True` with reason {@link ALL_NORMAL_REASON}.
 */
export const defaultRollUp: RollUp = (dependents) => {
  const abnormal = dependents.find((d) => d.health === "abnormal");
  if (abnormal?.condition) return { status: "False", ...reasonOf(abnormal.condition) };
  const unknown = dependents.find((d) => d.health === "unknown");
  if (unknown) return { status: "Unknown", ...unknownReason(unknown) };
  return { status: "True", reason: ALL_NORMAL_REASON, message: "" };
};

/** Builds the roll-up's view of each dependent, in declaration order. */
export function dependentStates<D extends string>(
  declared: readonly { type: D; polarity: Polarity }[],
  conditions: readonly Condition[],
  generation: number | undefined,
): DependentState<D>[] {
  return declared.map(({ type, polarity }) => {
    const found = conditions.find((c) => c.type === type);
    const condition = found && isCurrent(found, generation) ? found : undefined;
    return { type, polarity, condition, health: healthOf(condition, polarity) };
  });
}

function isCurrent(condition: Condition, generation: number | undefined): boolean {
  return generation === undefined || condition.observedGeneration === generation;
}

function healthOf(condition: Condition | undefined, polarity: Polarity): Health {
  if (!condition || condition.status === "Unknown") return "unknown";
  const normal: ConditionStatus = polarity === "normal-true" ? "True" : "False";
  return condition.status === normal ? "normal" : "abnormal";
}

function reasonOf(condition: Readonly<Condition>): { reason: string; message: string } {
  return { reason: condition.reason, message: condition.message };
}

function unknownReason(dependent: DependentState): { reason: string; message: string } {
  if (dependent.condition) return reasonOf(dependent.condition);
  return {
    reason: NOT_REPORTED_REASON,
    message: `${dependent.type} has not been reported for the current generation`,
  };
}
