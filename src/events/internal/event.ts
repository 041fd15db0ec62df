/**
 * One call of the recorder, from what the caller passed to what the apiserver stores: the call
 * normalised into an occurrence (references built, fields cut to the apiserver's limits), the two
 * keys it is grouped by, and the events.k8s.io/v1 Event a first occurrence becomes, with its
 * name and series.
 */
import { randomBytes } from "node:crypto";
import type { EventObject, ObjectReference } from "../../api/index.ts";
import type { EventType } from "../options.ts";
import { type EventSubject, objectReference } from "../reference.ts";
import { fieldLengthLimit } from "./resolve.ts";

/** The apiserver's limit on `note`, in bytes of UTF-8. */
const noteLengthLimit = 1024;

/** One occurrence of an event, ready to be keyed and written. */
export interface Occurrence {
  regarding: ObjectReference;
  related?: ObjectReference;
  type: EventType;
  reason: string;
  action: string;
  note: string;
  reportingController: string;
  reportingInstance: string;
}

/** What a caller passes for one event. */
export interface EventInput {
  regarding: EventSubject;
  related?: EventSubject;
  type: EventType;
  reason: string;
  action: string;
  note?: string;
}

/** Normalises `input`; throws a plain Error (which the recorder logs) when it cannot be an Event. */
export function toOccurrence(
  input: EventInput,
  reporter: Pick<Occurrence, "reportingController" | "reportingInstance">,
): Occurrence {
  const regarding = objectReference(input.regarding);
  if (!regarding.name) throw new Error("the regarding object has no name");
  if (input.type !== "Normal" && input.type !== "Warning")
    throw new Error(`type ${String(input.type)} is not Normal or Warning`);
  return {
    ...reporter,
    regarding,
    related: input.related ? objectReference(input.related) : undefined,
    type: input.type,
    reason: requireText("reason", input.reason, fieldLengthLimit),
    action: requireText("action", input.action, fieldLengthLimit),
    note: truncateUtf8(input.note ?? "", noteLengthLimit),
  };
}

function requireText(field: string, value: string, limit: number): string {
  if (typeof value !== "string" || value.length === 0)
    throw new Error(`${field} is empty; the apiserver requires it`);
  return truncateUtf8(value, limit);
}

/** Cuts `text` to at most `maxBytes` bytes of UTF-8 without splitting a character. */
function truncateUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString("utf8");
}

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

/** Where Events about cluster-scoped objects go, as in client-go. */
const clusterScopedEventNamespace = "default";

const maxNameLength = 253;

/** The Event for the first occurrence of `o`, observed at `nowMs`. */
export function eventBody(o: Occurrence, nowMs: number): EventObject {
  return {
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: {
      name: eventName(o.regarding.name ?? "", nowMs),
      namespace: o.regarding.namespace || clusterScopedEventNamespace,
    },
    eventTime: microTime(nowMs),
    type: o.type,
    reason: o.reason,
    action: o.action,
    ...(o.note ? { note: o.note } : {}),
    regarding: o.regarding,
    ...(o.related ? { related: o.related } : {}),
    reportingController: o.reportingController,
    reportingInstance: o.reportingInstance,
  };
}

/** `event` with `series` set when it happened more than once. */
export function withSeries(event: EventObject, series: SeriesState): EventObject {
  return series.count > 1 ? { ...event, series: seriesField(series) } : event;
}

/** How often an event happened and when last. */
export interface SeriesState {
  count: number;
  lastObservedMs: number;
}

/** The `series` field of an Event. */
export function seriesField(series: SeriesState): NonNullable<EventObject["series"]> {
  return { count: series.count, lastObservedTime: microTime(series.lastObservedMs) };
}

/** A `metav1.MicroTime`: RFC 3339 in UTC with six fractional digits. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/**
 * `<regarding name>.<suffix>`, as client-go, with a suffix of the time in hex plus random bytes
 * so that two recorders never collide. The name part is made a valid DNS subdomain and cut to fit.
 */
function eventName(regardingName: string, nowMs: number): string {
  const suffix = `${nowMs.toString(16)}${randomBytes(4).toString("hex")}`;
  const prefix = dnsSubdomain(regardingName)
    .slice(0, maxNameLength - suffix.length - 1)
    .replace(/[-.]+$/, "");
  return `${prefix || "event"}.${suffix}`;
}

function dnsSubdomain(name: string): string {
  return name
    .toLowerCase()
    .split(".")
    .map((label) => label.replace(/[^a-z0-9-]+/g, "-").replace(/^-+|-+$/g, ""))
    .filter((label) => label.length > 0)
    .join(".");
}
