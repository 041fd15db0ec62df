/**
 * Host timers that survive any delay. Node runs a timer of more than 2^31 - 1 ms (about 24.8
 * days) after 1 ms instead, with a `TimeoutOverflowWarning`, so a 30-day `requeueAfter` or resync
 * period would become a hot loop; a chained timer waits in steps no longer than that limit until
 * its deadline on the monotonic clock.
 */
import type { Timer } from "../index.ts";

/** Node's longest timer delay: 2^31 - 1 ms. */
export const maxHostDelayMs = 2 ** 31 - 1;

/** The host timer functions a chained timer runs on: the globals, or a fake in tests. */
export interface TimerHost {
  /** Monotonic milliseconds (`performance.now()`). */
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** Lets the process exit while the timer waits. */
  unref(handle: unknown): void;
}

/** The process's own timers. */
export const nodeTimerHost: TimerHost = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
  unref: (handle) => (handle as NodeJS.Timeout).unref(),
};

/** A delay as every clock reads it: negative and NaN mean "now"; Infinity means "never". */
export function timerDelay(ms: number): number {
  return Number.isNaN(ms) || ms < 0 ? 0 : ms;
}

/**
 * Runs `fn` once `ms` milliseconds have passed on `host`'s monotonic clock, however long `ms` is,
 * by chaining host timers of at most {@link maxHostDelayMs}. `keepAlive` false unrefs each one.
 */
export function chainedTimer(host: TimerHost, ms: number, fn: () => void, keepAlive: boolean): Timer {
  const due = host.now() + timerDelay(ms);
  let handle: unknown;
  const step = () => {
    const left = due - host.now();
    const last = left <= maxHostDelayMs;
    handle = host.setTimeout(last ? fn : step, last ? Math.max(0, left) : maxHostDelayMs);
    if (!keepAlive) host.unref(handle);
  };
  step();
  return { cancel: () => host.clearTimeout(handle) };
}
