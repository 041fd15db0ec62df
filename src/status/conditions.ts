import { type Clock, systemClock } from "../clock/index.ts";
import { formatConditionTime, normalizeConditionTime } from "./time.ts";
import {
  truncateMessage,
  validateConditionType,
  validateObservedGeneration,
  validateReason,
  validateStatus,
} from "./validation.ts";

/** The status of a condition. A condition that is absent reads as `Unknown`. */
export type ConditionStatus = "True" | "False" | "Unknown";

/** One entry of `status.conditions`, shaped exactly like metav1.Condition (same fields, same JSON). */
export interface Condition {
  /** CamelCase (`Ready`) or `domain/CamelCase` (`example.com/DatabaseReady`); unique in the list. */
  type: string;
  status: ConditionStatus;
  /** The `metadata.generation` this condition was computed from; lower than the current one means stale. */
  observedGeneration?: number;
  /** When `status` last changed: RFC 3339, UTC, second precision (`2026-11-22T04:25:53Z`). */
  lastTransitionTime: string;
  /** A CamelCase category for machines and one-line output. */
  reason: string;
  /** A sentence for humans; may be empty. */
  message: string;
}

/** What {@link setCondition} takes: a {@link Condition} whose message and time may be left out. */
export interface ConditionInput {
  type: string;
  status: ConditionStatus;
  reason: string;
  /** Defaults to `""`. Longer than 32768 characters is truncated with a visible marker. */
  message?: string;
  observedGeneration?: number;
  /** Used only when the status changes (or the condition is new); defaults to the clock's now. */
  lastTransitionTime?: string;
}

/**
 * Sets a condition with the exact semantics of apimachinery's `meta.SetStatusCondition`, and
 * **mutates `conditions` in place** as the Go version does:
 * - absent: appends it, with the input's `lastTransitionTime` or now;
 * - present with another status: updates `status` and `lastTransitionTime` (the input's, or now);
 * - present with the same status: keeps `lastTransitionTime`, even when the input carries another;
 * - `reason`, `message` and `observedGeneration` are copied whenever they differ, without touching
 *   `lastTransitionTime`.
 *
 * Times are stored at second precision in UTC. Returns whether anything changed.
 * Throws {@link InvalidConditionError} on an invalid type, status, reason, generation or time.
 *
 * @example
 * ```ts
 * const conditions: Condition[] = [];
 * setCondition(conditions, { type: "Ready", status: "True", reason: "AllGood" }); // true
 * setCondition(conditions, { type: "Ready", status: "True", reason: "AllGood" }); // false
 * ```
 */
export function setCondition(
  conditions: Condition[],
  input: ConditionInput,
  clock: Clock = systemClock,
): boolean {
  const next = toCondition(input, clock);
  const existing = findCondition(conditions, next.type);
  if (!existing) {
    conditions.push(next);
    return true;
  }
  return merge(existing, next);
}

/** Removes every condition of `type` from `conditions`, in place. Returns whether one was removed. */
export function removeCondition(conditions: Condition[], type: string): boolean {
  const before = conditions.length;
  for (let i = conditions.length - 1; i >= 0; i--) {
    if (conditions[i]?.type === type) conditions.splice(i, 1);
  }
  return conditions.length !== before;
}

/** The condition of `type`, or `undefined`. The object returned is the list's own entry, not a copy. */
export function findCondition(conditions: readonly Condition[], type: string): Condition | undefined {
  return conditions.find((c) => c.type === type);
}

/** True when the condition of `type` is present with `status`; false when it is absent. */
export function isPresentAndEqual(
  conditions: readonly Condition[],
  type: string,
  status: ConditionStatus,
): boolean {
  return findCondition(conditions, type)?.status === status;
}

/** True when the condition of `type` is present and `True`. */
export function isTrue(conditions: readonly Condition[], type: string): boolean {
  return isPresentAndEqual(conditions, type, "True");
}

/** True when the condition of `type` is present and `False`. */
export function isFalse(conditions: readonly Condition[], type: string): boolean {
  return isPresentAndEqual(conditions, type, "False");
}

/** True when the condition of `type` is `Unknown` or absent: absence means Unknown. */
export function isUnknown(conditions: readonly Condition[], type: string): boolean {
  return (findCondition(conditions, type)?.status ?? "Unknown") === "Unknown";
}

/** Validates `input` and builds the condition it stands for, in metav1.Condition's field order. */
function toCondition(input: ConditionInput, clock: Clock): Condition {
  validateConditionType(input.type);
  validateStatus(input.status);
  validateReason(input.reason);
  validateObservedGeneration(input.observedGeneration);
  const lastTransitionTime =
    input.lastTransitionTime === undefined
      ? formatConditionTime(clock.now())
      : normalizeConditionTime(input.lastTransitionTime);
  return {
    type: input.type,
    status: input.status,
    ...(input.observedGeneration === undefined ? {} : { observedGeneration: input.observedGeneration }),
    lastTransitionTime,
    reason: input.reason,
    message: truncateMessage(input.message ?? ""),
  };
}

/** Copies `next` onto `existing` the way SetStatusCondition does. Returns whether anything changed. */
function merge(existing: Condition, next: Condition): boolean {
  let changed = false;
  if (existing.status !== next.status) {
    existing.status = next.status;
    existing.lastTransitionTime = next.lastTransitionTime;
    changed = true;
  }
  if (existing.reason !== next.reason) {
    existing.reason = next.reason;
    changed = true;
  }
  if (existing.message !== next.message) {
    existing.message = next.message;
    changed = true;
  }
  if (existing.observedGeneration !== next.observedGeneration) {
    if (next.observedGeneration === undefined) delete existing.observedGeneration;
    else existing.observedGeneration = next.observedGeneration;
    changed = true;
  }
  return changed;
}
