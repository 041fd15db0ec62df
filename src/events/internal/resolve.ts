/** Fills in the defaults of {@link EventRecorderOptions} and rejects values the apiserver or the recorder cannot use. */
import { hostname } from "node:os";
import { type Clock, systemClock } from "../../clock/index.ts";
import { InvalidRecorderOptionError } from "../errors.ts";
import type { EventLogger, EventRateLimit, EventRecorderOptions, EventRetry } from "../options.ts";

/** The options with every default filled in. */
export interface ResolvedOptions {
  reportingController: string;
  reportingInstance: string;
  clock: Clock;
  logger: EventLogger;
  seriesWindowMs: number;
  seriesUpdateIntervalMs: number;
  rateLimit: Required<EventRateLimit> | false;
  maxQueued: number;
  retry: Required<EventRetry>;
}

/** The apiserver's limit on `reportingInstance`, `reason` and `action` (characters). */
export const fieldLengthLimit = 128;

const qualifiedName =
  /^(?:([a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*)\/)?([A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?)$/;

const consoleLogger: EventLogger = { warn: (obj, msg) => console.warn(msg, obj) };

/** Resolves and validates; throws {@link InvalidRecorderOptionError} on the first bad option. */
export function resolveOptions(options: EventRecorderOptions): ResolvedOptions {
  const reportingController = requireQualifiedName(options.reportingController);
  const resolved: ResolvedOptions = {
    reportingController,
    reportingInstance: options.reportingInstance ?? defaultInstance(reportingController),
    clock: options.clock ?? systemClock,
    logger: options.logger ?? consoleLogger,
    seriesWindowMs: options.seriesWindowMs ?? 6 * 60_000,
    seriesUpdateIntervalMs: options.seriesUpdateIntervalMs ?? 30_000,
    rateLimit:
      options.rateLimit === false ? false : { burst: 25, refillIntervalMs: 300_000, ...options.rateLimit },
    maxQueued: options.maxQueued ?? 1000,
    retry: { attempts: 12, baseDelayMs: 500, maxDelayMs: 10_000, ...options.retry },
  };
  validateNumbers(resolved);
  requireInstance(resolved.reportingInstance);
  return resolved;
}

function requireQualifiedName(value: string): string {
  const match = typeof value === "string" ? qualifiedName.exec(value) : null;
  const [, prefix = "", name = ""] = match ?? [];
  if (match && prefix.length <= 253 && name.length <= 63) return value;
  throw new InvalidRecorderOptionError(
    "reportingController",
    value,
    "a qualified name such as `example.com/my-controller` (name part at most 63 characters)",
  );
}

function requireInstance(value: string): void {
  if (typeof value === "string" && value.length > 0 && value.length <= fieldLengthLimit) return;
  throw new InvalidRecorderOptionError(
    "reportingInstance",
    value,
    `a non-empty string of at most ${fieldLengthLimit} characters`,
  );
}

function defaultInstance(controller: string): string {
  const name = controller.slice(controller.lastIndexOf("/") + 1);
  return `${name}-${hostname()}`.slice(0, fieldLengthLimit);
}

function validateNumbers(o: ResolvedOptions): void {
  const counts: [string, number][] = [
    ["maxQueued", o.maxQueued],
    ["retry.attempts", o.retry.attempts],
  ];
  const durations: [string, number][] = [
    ["seriesWindowMs", o.seriesWindowMs],
    ["seriesUpdateIntervalMs", o.seriesUpdateIntervalMs],
    ["retry.baseDelayMs", o.retry.baseDelayMs],
    ["retry.maxDelayMs", o.retry.maxDelayMs],
  ];
  if (o.rateLimit) {
    counts.push(["rateLimit.burst", o.rateLimit.burst]);
    const refill = o.rateLimit.refillIntervalMs;
    if (!(Number.isFinite(refill) && refill > 0)) {
      throw new InvalidRecorderOptionError("rateLimit.refillIntervalMs", refill, "a finite number > 0");
    }
  }
  for (const [option, value] of counts) {
    if (!Number.isInteger(value) || value < 1)
      throw new InvalidRecorderOptionError(option, value, "an integer >= 1");
  }
  for (const [option, value] of durations) {
    if (!Number.isFinite(value) || value < 0)
      throw new InvalidRecorderOptionError(option, value, "a finite number >= 0");
  }
}
