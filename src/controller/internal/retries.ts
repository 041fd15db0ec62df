/**
 * How a failed key comes back: the rate limiter's delay, made safe to use, and a short, capped
 * backoff for failures that only say the apiserver was away.
 */
import { apiserverAway } from "../../client/index.ts";
import { exponentialRateLimiter, type RateLimiter } from "../../queue/index.ts";
import { causes } from "./causes.ts";

/**
 * `limiter`, except that a `when` that throws or answers something other than a finite number
 * >= 0 (a NaN from `exponentialRateLimiter({ baseDelayMs: 0 })` after ~1024 failures, a negative
 * or infinite delay) is reported and replaced by client-go's default per-key backoff (5 ms
 * doubling to 1000 s): a broken limiter must neither stop the worker nor lose the key.
 */
export function guardedRateLimiter(limiter: RateLimiter, onInvalid: (problem: unknown) => void): RateLimiter {
  const fallback = exponentialRateLimiter();
  return {
    when(key) {
      let delay: unknown;
      try {
        delay = limiter.when(key);
      } catch (err) {
        delay = err;
      }
      if (typeof delay === "number" && Number.isFinite(delay) && delay >= 0) return delay;
      onInvalid(
        delay instanceof Error ? delay : new RangeError(`the rate limiter returned ${String(delay)} ms`),
      );
      return fallback.when(key);
    },
    forget(key) {
      fallback.forget(key);
      limiter.forget(key);
    },
    retries: (key) => Math.max(fallback.retries(key), limiter.retries(key)),
  };
}

/** The longest wait of a key whose reconciles failed only because the apiserver was away, before jitter. */
export const outageBackoffCapMs = 1_000;

/**
 * Per-key backoff for failures that say the apiserver was away ({@link serverUnavailable}): 5 ms
 * doubling to {@link outageBackoffCapMs}, then × (1 + up to 1) jitter, so at most 2 s. client-go
 * and controller-runtime back these off like any error, up to 1000 s, and through the shared
 * 10 qps bucket: measured (test/e2e/runtime/apiserver-restart.test.ts), a 20 s outage then
 * left keys waiting ~20 s after the apiserver was back. The client's own rate limit still
 * spaces the retries a recovering apiserver receives; the jitter keeps keys from retrying in step.
 */
export function outageBackoff(random: () => number = Math.random): RateLimiter {
  const capped = exponentialRateLimiter({ baseDelayMs: 5, maxDelayMs: outageBackoffCapMs });
  return { ...capped, when: (key) => capped.when(key) * (1 + random()) };
}

/**
 * True when `err` (or an error in its cause chain) says only that the apiserver was away
 * ({@link apiserverAway}: not reachable, answering 502/503 or a server-side timeout, or not
 * answering in time). A plain 500 (e.g. a failing admission webhook) is not among them: it keeps
 * the full backoff.
 */
export function serverUnavailable(err: unknown): boolean {
  return causes(err).some(apiserverAway);
}
