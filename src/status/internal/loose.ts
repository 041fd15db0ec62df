/**
 * Reading fields of an unchecked object the way `cli-utils` does (`GetIntField`,
 * `GetStringField`, `GetObjectWithConditions`): a missing field or one of the wrong type reads as
 * the fallback, never as an error.
 */

/** A JSON object whose fields are not known yet. */
export type LooseRecord = Record<string, unknown>;

/** A condition read from an unchecked object: only `type` and `status` are known to be strings. */
export interface LooseCondition {
  type: string;
  status: string;
  reason?: unknown;
  message?: unknown;
}

/** Whether `value` is a JSON object (not null, not an array). */
export function isRecord(value: unknown): value is LooseRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value at a dotted `path` (`"spec.replicas"`), or `undefined` when a step is missing. */
export function fieldAt(obj: unknown, path: string): unknown {
  let value = obj;
  for (const key of path.split(".")) {
    if (!isRecord(value)) return undefined;
    value = value[key];
  }
  return value;
}

/** The integer at `path`, or `fallback` when it is missing or not an integer. */
export function intField(obj: unknown, path: string, fallback: number): number {
  const value = fieldAt(obj, path);
  return Number.isInteger(value) ? (value as number) : fallback;
}

/** The string at `path`, or `fallback` when it is missing or not a string. */
export function stringField(obj: unknown, path: string, fallback: string): string {
  const value = fieldAt(obj, path);
  return typeof value === "string" ? value : fallback;
}

/** The well-formed entries of `status.conditions`, in list order. */
export function conditionsOf(obj: unknown): LooseCondition[] {
  const value = fieldAt(obj, "status.conditions");
  if (!Array.isArray(value)) return [];
  return value.filter(
    (c): c is LooseCondition => isRecord(c) && typeof c.type === "string" && typeof c.status === "string",
  );
}

/** The first condition of `type` whose status is `status`. */
export function conditionWithStatus(
  conditions: readonly LooseCondition[],
  type: string,
  status: string,
): LooseCondition | undefined {
  return conditions.find((c) => c.type === type && c.status === status);
}
