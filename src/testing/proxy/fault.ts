/**
 * What a rule does to the requests it matches. Request faults (latency, blackhole, reset, an
 * error status) act before the request reaches the apiserver; stream faults act on the events of
 * a watch, one event at a time, for as long as the rule is in place.
 */
import { ProxyRuleError } from "./errors.ts";

/** The `type` of a watch event. */
export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

/**
 * Which watch events a stream fault touches: `"all"`, one type, several types, or every Nth event
 * (counted per stream from when the rule first applies, optionally among the given types only).
 */
export type EventSelector = "all" | WatchEventType | readonly WatchEventType[] | EverySelector;

/**
 * A fault. Fields combine; within one rule they act in this order: `latencyMs`, then one of
 * `blackhole` / `reset: "before-headers"` / `status`, then the stream faults on a watch's events.
 */
export interface Fault {
  /** Wait this long before doing anything else with the request. */
  latencyMs?: number;
  /** Accept the request and never answer, until the rule is removed (then forward it) or the proxy stops. */
  blackhole?: boolean;
  /** Destroy the client's connection: before any response, or right after the upstream response headers. */
  reset?: "before-headers" | "after-headers";
  /** Answer with this HTTP status and a Kubernetes `Status` body instead of asking the apiserver. */
  status?: number;
  /** `Retry-After` (seconds) and `details.retryAfterSeconds` of the answer. Default 1 for 429, none otherwise. */
  retryAfterSeconds?: number;
  /** The `Status` message. Default: names the proxy and the status. */
  message?: string;
  /** The `Status` reason. Default: the one kube-apiserver uses for that code (`TooManyRequests`, `InternalError`, ...). */
  reason?: string;
  /**
   * List: answer as of this resourceVersion (`resourceVersionMatch=Exact`), as an apiserver or
   * watch cache that lags would: the client sees the objects as they were then, and a watch it
   * starts from the list resumes from there. Later pages (`continue`) are left as they are: their
   * token carries the version.
   */
  listAsOf?: string;
  /** Watch: do not forward these events. */
  dropEvents?: EventSelector;
  /** Watch: forward these events twice. */
  duplicateEvents?: EventSelector;
  /** Watch: forward every event this much later than it arrived (order is kept). */
  delayEventsMs?: number;
  /** Watch: forward nothing at all, bookmarks included, while the connection stays open. Events meanwhile are lost. */
  silence?: boolean;
  /** Watch: end the stream cleanly (as an apiserver timeout does), at once or after this many more forwarded events. */
  endStream?: true | { afterEvents: number };
}

/** The `{ every }` form of an {@link EventSelector}. */
export type EverySelector = { every: number; types?: readonly WatchEventType[] };

/** True for the `{ every }` form of a selector. */
export function isEverySelector(selector: EventSelector | undefined): selector is EverySelector {
  return typeof selector === "object" && !Array.isArray(selector);
}

const requestFields = ["latencyMs", "blackhole", "reset", "status", "listAsOf"] as const;
const streamFields = ["dropEvents", "duplicateEvents", "delayEventsMs", "silence", "endStream"] as const;

/** True when the fault acts on the request itself. */
export function hasRequestFault(fault: Fault): boolean {
  return requestFields.some((f) => fault[f] !== undefined && fault[f] !== false);
}

/** True when the fault acts on watch events. */
export function hasStreamFault(fault: Fault): boolean {
  return streamFields.some((f) => fault[f] !== undefined && fault[f] !== false);
}

/** Throws {@link ProxyRuleError} when a fault cannot be applied as written. */
export function validateFault(fault: Fault): void {
  const fail = (detail: string) => {
    throw new ProxyRuleError(detail);
  };
  if (!hasRequestFault(fault) && !hasStreamFault(fault)) fail("the fault has no effect set");
  const terminal = [fault.blackhole === true, fault.reset === "before-headers", fault.status !== undefined];
  if (terminal.filter(Boolean).length > 1) {
    fail("blackhole, reset before headers and status each decide the answer; set only one per rule");
  }
  if (
    fault.status !== undefined &&
    !(Number.isInteger(fault.status) && fault.status >= 100 && fault.status < 600)
  ) {
    fail(`status ${fault.status} is not an HTTP status code`);
  }
  const statusOnly = ["retryAfterSeconds", "message", "reason"] as const;
  if (fault.status === undefined && statusOnly.some((f) => fault[f] !== undefined)) {
    fail("retryAfterSeconds, message and reason only go with status");
  }
  if (fault.listAsOf !== undefined && !/^[1-9]\d*$/.test(fault.listAsOf)) {
    fail(`listAsOf ${fault.listAsOf} is not a resourceVersion (a positive whole number)`);
  }
  for (const field of ["latencyMs", "delayEventsMs", "retryAfterSeconds"] as const) {
    const value = fault[field];
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) fail(`${field} must be >= 0`);
  }
  for (const selector of [fault.dropEvents, fault.duplicateEvents]) {
    const every = isEverySelector(selector) ? selector.every : 1;
    if (!(Number.isInteger(every) && every >= 1)) fail("every must be a whole number >= 1");
  }
  if (typeof fault.endStream === "object" && !(fault.endStream.afterEvents >= 0)) {
    fail("endStream.afterEvents must be >= 0");
  }
}
