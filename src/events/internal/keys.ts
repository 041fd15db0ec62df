/**
 * The two keys the recorder groups by: an event's isomorphism key (which occurrences are the
 * same event and join one series) and the rate-limit key (whose budget an event spends).
 */
import type { ObjectReference } from "../../api/index.ts";
import type { Occurrence } from "./occurrence.ts";

/**
 * Same regarding object, related object, action, reason, reporting pair, type and note: the same
 * event. The object's resourceVersion is left out, so one object changing between repeats does
 * not split its series.
 */
export function eventKey(o: Occurrence): string {
  return JSON.stringify([
    identityOf(o.regarding),
    identityOf(o.related),
    o.action,
    o.reason,
    o.reportingController,
    o.reportingInstance,
    o.type,
    o.note,
  ]);
}

/** Source plus object, as client-go's spam filter: every event about one object shares a budget. */
export function rateLimitKey(o: Occurrence): string {
  return JSON.stringify([o.reportingController, o.reportingInstance, identityOf(o.regarding)]);
}

function identityOf(ref: ObjectReference | undefined): string[] {
  if (!ref) return [];
  return [ref.apiVersion, ref.kind, ref.namespace, ref.name, ref.uid, ref.fieldPath].map((s) => s ?? "");
}
