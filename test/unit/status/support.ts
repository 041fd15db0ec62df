import type { Condition, ConditionStatus, StoredStatus } from "../../../src/status/index.ts";

/** An RFC 3339 second-precision time before every test clock. */
export const EARLIER = "2026-01-01T00:00:00Z";
/** The test clock's start, in ms; 789 ms past the second so second precision is visible. */
export const NOW_MS = Date.parse("2026-11-22T04:25:53Z") + 789;
/** {@link NOW_MS} as a condition time. */
export const NOW = "2026-11-22T04:25:53Z";

/** A stored condition, computed from generation 1 at {@link EARLIER} unless overridden. */
export function stored(type: string, status: ConditionStatus, overrides: Partial<Condition> = {}): Condition {
  return {
    type,
    status,
    observedGeneration: 1,
    lastTransitionTime: EARLIER,
    reason: `${type}${status}`,
    message: "",
    ...overrides,
  };
}

/** An object at `generation` with `status`. */
export function subject(generation: number | undefined, status?: StoredStatus) {
  return { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w", generation }, status };
}
