/** The events.k8s.io/v1 Event a first occurrence becomes, its name, and its series. */
import { randomBytes } from "node:crypto";
import type { EventObject } from "../../api/index.ts";
import type { Occurrence } from "./occurrence.ts";

/** Where Events about cluster-scoped objects go, as in client-go. */
export const clusterScopedEventNamespace = "default";

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
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/**
 * `<regarding name>.<suffix>`, as client-go, with a suffix of the time in hex plus random bytes
 * so that two recorders never collide. The name part is made a valid DNS subdomain and cut to fit.
 */
export function eventName(regardingName: string, nowMs: number): string {
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
