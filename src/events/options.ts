import type { Event, EventObject } from "../api/index.ts";
import type { PatchType, WriteOptions } from "../client/index.ts";
import type { Clock } from "../clock/index.ts";

/**
 * The two verbs the recorder needs; a `Client` fits. Give the recorder a client of its
 * own when events should not spend the reconcilers' client-side rate budget.
 */
export interface EventClient {
  /** Creates an Event. */
  create(type: typeof Event, obj: EventObject, opts?: WriteOptions): Promise<EventObject>;
  /** Patches an Event (the recorder sends `merge` patches of `series`). */
  patch(
    type: typeof Event,
    name: string,
    patch: unknown,
    opts: WriteOptions & { type: PatchType },
  ): Promise<EventObject>;
}

/** `Normal` for things going as planned, `Warning` for things a human may need to look at. */
export type EventType = "Normal" | "Warning";

/**
 * Where the recorder reports failures it swallowed: pino's `logger.warn(obj, msg)` shape, so a
 * pino logger (or a child of one) fits as is.
 */
export interface EventLogger {
  /** Logs a warning: `obj` carries `err` and the event, `msg` says what was given up. */
  warn(obj: object, msg: string): void;
}

/** Per-object limit on new Event objects, as client-go's spam filter (a token bucket per source and object). */
export interface EventRateLimit {
  /** Events one object may get at once. Default 25. */
  burst?: number;
  /** Time for one more token to come back, in milliseconds. Default 300 000 (5 min). */
  refillIntervalMs?: number;
}

/** How the background sender retries a write that failed transiently (unreachable, 5xx, 429, timeout). */
export interface EventRetry {
  /** Attempts per write, the first included. Default 12 (client-go's `maxTriesPerEvent`). */
  attempts?: number;
  /** Wait before the second attempt, doubling after each failure. Default 500 ms. */
  baseDelayMs?: number;
  /** Upper bound of the wait. Default 10 000 ms (client-go's retry sleep). */
  maxDelayMs?: number;
}

/** Options of an {@link EventRecorder}. */
export interface EventRecorderOptions {
  /**
   * The controller that reports, as a qualified name (`[prefix/]name`, the name at most 63
   * characters), e.g. `kubeloop.dev/job-controller`. Required.
   */
  reportingController: string;
  /** The instance of that controller, at most 128 characters. Default `<controller name>-<hostname>`. */
  reportingInstance?: string;
  /** Source of time and timers. Default the system clock. */
  clock?: Clock;
  /** Receives failed writes and dropped work. Default: `console.warn`. */
  logger?: EventLogger;
  /** A repeat joins the series of its event when it comes within this long of the previous one. Default 6 min, as client-go. */
  seriesWindowMs?: number;
  /** Least time between two writes of one event; repeats in between are coalesced. Default 30 000 ms. */
  seriesUpdateIntervalMs?: number;
  /** Limit on new Event objects per regarding object, or `false` for none. */
  rateLimit?: EventRateLimit | false;
  /** Writes waiting to be sent; beyond this the oldest is dropped. Default 1000 (client-go's queue length). */
  maxQueued?: number;
  /** Retries of transient failures. */
  retry?: EventRetry;
}
