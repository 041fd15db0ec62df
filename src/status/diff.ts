import { type Condition, type ConditionStatus, findCondition } from "./conditions.ts";

/** A change of a condition's status made by `finish()`, for events and metrics. */
export interface Transition {
  readonly type: string;
  /** The status before; `undefined` when the condition was absent. */
  readonly from: ConditionStatus | undefined;
  /** The status after; `undefined` when the condition was removed. */
  readonly to: ConditionStatus | undefined;
  /** The reason after the transition; `undefined` when the condition was removed. */
  readonly reason: string | undefined;
  /** The message after the transition; `undefined` when the condition was removed. */
  readonly message: string | undefined;
}

const COMPARED_FIELDS = [
  "type",
  "status",
  "observedGeneration",
  "lastTransitionTime",
  "reason",
  "message",
] as const;

/** The status changes between `before` and `after` among `types`, in the order of `types`. */
export function transitionsBetween(
  before: readonly Condition[],
  after: readonly Condition[],
  types: readonly string[],
): Transition[] {
  return types.flatMap((type) => {
    const from = findCondition(before, type)?.status;
    const next = findCondition(after, type);
    if (from === next?.status) return [];
    return [{ type, from, to: next?.status, reason: next?.reason, message: next?.message }];
  });
}

/** True when both lists hold the same conditions, field for field, in the same order. */
export function sameConditions(a: readonly Condition[], b: readonly Condition[]): boolean {
  return a.length === b.length && a.every((c, i) => COMPARED_FIELDS.every((f) => c[f] === b[i]?.[f]));
}
