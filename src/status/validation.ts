import { InvalidConditionError } from "./errors.ts";

/** Longest condition type metav1.Condition accepts (a 253-character prefix, `/`, a 62-character name). */
export const MAX_TYPE_LENGTH = 316;
/** Longest reason metav1.Condition accepts. */
export const MAX_REASON_LENGTH = 1024;
/** Longest message metav1.Condition accepts; longer messages are truncated, not rejected. */
export const MAX_MESSAGE_LENGTH = 32768;
/** Appended to a message that was cut to {@link MAX_MESSAGE_LENGTH}. */
export const TRUNCATION_MARKER = " …[truncated]";

/** The metav1.Condition `type` pattern: an optional DNS-subdomain prefix and `/`, then a qualified name. */
const TYPE_PATTERN =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$/;
/** The metav1.Condition `reason` pattern. */
const REASON_PATTERN = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;
const STATUSES: readonly unknown[] = ["True", "False", "Unknown"];

const TYPE_RULE =
  `a type is CamelCase or <dns-subdomain>/CamelCase (letters, digits, '-', '_', '.', starting and ending ` +
  `with a letter or digit), at most ${MAX_TYPE_LENGTH} characters`;
const TYPE_EXAMPLE = `"Ready" or "example.com/DatabaseReady"`;
const REASON_RULE =
  `a reason is a CamelCase identifier: a letter, then letters, digits, '_', ',' or ':', not ending in ',' ` +
  `or ':', 1 to ${MAX_REASON_LENGTH} characters`;
const REASON_EXAMPLE = `"MinimumReplicasAvailable"`;

/** Throws {@link InvalidConditionError} unless `type` is a valid metav1.Condition type. */
export function validateConditionType(type: unknown): asserts type is string {
  const valid = typeof type === "string" && type.length <= MAX_TYPE_LENGTH && TYPE_PATTERN.test(type);
  if (!valid) throw new InvalidConditionError("type", type, TYPE_RULE, TYPE_EXAMPLE);
}

/** Throws {@link InvalidConditionError} unless `reason` is a valid metav1.Condition reason. */
export function validateReason(reason: unknown): asserts reason is string {
  if (!isValidReason(reason)) throw new InvalidConditionError("reason", reason, REASON_RULE, REASON_EXAMPLE);
}

/** Whether `reason` is a valid metav1.Condition reason. */
export function isValidReason(reason: unknown): reason is string {
  return typeof reason === "string" && reason.length <= MAX_REASON_LENGTH && REASON_PATTERN.test(reason);
}

/** Throws {@link InvalidConditionError} unless `status` is exactly `True`, `False` or `Unknown`. */
export function validateStatus(status: unknown): void {
  if (STATUSES.includes(status)) return;
  throw new InvalidConditionError(
    "status",
    status,
    `a status is "True", "False" or "Unknown" (case matters)`,
    `"True"`,
  );
}

/** Throws {@link InvalidConditionError} unless `generation` is absent or a non-negative integer. */
export function validateObservedGeneration(generation: unknown): void {
  if (generation === undefined || (Number.isSafeInteger(generation) && (generation as number) >= 0)) return;
  throw new InvalidConditionError(
    "observedGeneration",
    generation,
    "an observedGeneration is a non-negative integer, the metadata.generation the condition was computed from",
    "3",
  );
}

/**
 * Returns `message` unchanged when it fits in {@link MAX_MESSAGE_LENGTH} UTF-16 code units, otherwise
 * cut so that, with {@link TRUNCATION_MARKER} appended, it fits exactly. A surrogate pair is never split.
 */
export function truncateMessage(message: string): string {
  if (message.length <= MAX_MESSAGE_LENGTH) return message;
  let end = MAX_MESSAGE_LENGTH - TRUNCATION_MARKER.length;
  if (isHighSurrogate(message.charCodeAt(end - 1))) end -= 1;
  return message.slice(0, end) + TRUNCATION_MARKER;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
