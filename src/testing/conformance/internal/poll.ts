/** Polling with a deadline: the kit waits for outcomes this way, never with fixed sleeps. */
import { systemClock } from "../../../clock/index.ts";

/**
 * Calls `probe` every `intervalMs` until it returns something other than `undefined`, and returns
 * that; returns `undefined` once `timeoutMs` has passed. A probe that throws counts as "not yet"
 * (the apiserver may be restarting). `intervalMs` may be a function, asked after each probe, for a
 * probe that knows when its answer can change next.
 */
export async function poll<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs: number,
  intervalMs: number | (() => number) = 250,
): Promise<T | undefined> {
  const deadline = systemClock.now() + timeoutMs;
  for (;;) {
    const value = await Promise.resolve()
      .then(probe)
      .catch(() => undefined);
    if (value !== undefined) return value;
    if (systemClock.now() >= deadline) return undefined;
    await systemClock.sleep(typeof intervalMs === "number" ? intervalMs : intervalMs());
  }
}

/** Milliseconds since `start` (clock time). */
export const since = (start: number): number => systemClock.now() - start;

/** The current clock time in milliseconds. */
export const now = (): number => systemClock.now();
