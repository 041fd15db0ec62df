import type { Clock } from "../clock/index.ts";
import { requireNumber } from "./internal/validate.ts";

/**
 * Decides how long a key waits before it is retried. Small and composable, as client-go's
 * `workqueue.RateLimiter`: combine several with {@link maxOfRateLimiters}.
 */
export interface RateLimiter {
  /** Records one more failure of `key` and returns how many milliseconds it should wait. */
  when(key: string): number;
  /** Forgets `key`'s failures (call it after a success); its next delay starts from the base again. */
  forget(key: string): void;
  /** How many failures of `key` are on record. */
  retries(key: string): number;
}

/** Options of {@link exponentialRateLimiter}. */
export interface ExponentialOptions {
  /** Delay after the first failure, in milliseconds. Default 5. */
  baseDelayMs?: number;
  /** Upper bound of the delay, in milliseconds. Default 1 000 000 (1000 s). */
  maxDelayMs?: number;
}

/**
 * Per-key exponential backoff, as client-go's `ItemExponentialFailureRateLimiter`: the n-th
 * failure of a key waits `baseDelayMs * 2^(n-1)`, capped at `maxDelayMs`, until
 * {@link RateLimiter.forget}. It counts failures, not time, so it needs no clock.
 */
export function exponentialRateLimiter(options: ExponentialOptions = {}): RateLimiter {
  const { baseDelayMs = 5, maxDelayMs = 1_000_000 } = options;
  requireNumber("baseDelayMs", baseDelayMs, { min: 0 });
  requireNumber("maxDelayMs", maxDelayMs, { min: baseDelayMs });
  const failures = new Map<string, number>();
  return {
    when(key) {
      const previous = failures.get(key) ?? 0;
      failures.set(key, previous + 1);
      return Math.min(baseDelayMs * 2 ** previous, maxDelayMs);
    },
    forget: (key) => failures.delete(key),
    retries: (key) => failures.get(key) ?? 0,
  };
}

/** Options of {@link bucketRateLimiter}. */
export interface BucketOptions {
  /** Tokens added per second. Default 10. */
  qps?: number;
  /** Bucket size: how many keys may pass at once before the spacing starts. Default 100. */
  burst?: number;
}

/**
 * One token bucket shared by every key, as client-go's `BucketRateLimiter` over
 * `golang.org/x/time/rate`: the bucket starts full with `burst` tokens and refills at `qps`.
 * Each call reserves a token, and returns how long until that token exists. It keeps no
 * per-key state, so `forget` does nothing and `retries` is always 0.
 */
export function bucketRateLimiter(clock: Clock, options: BucketOptions = {}): RateLimiter {
  const { qps = 10, burst = 100 } = options;
  requireNumber("qps", qps, { min: 0, exclusive: true });
  requireNumber("burst", burst, { min: 1 });
  let tokens = burst;
  let last = clock.monotonicMs();
  return {
    when() {
      const now = clock.monotonicMs();
      tokens = Math.min(burst, tokens + (Math.max(0, now - last) * qps) / 1000) - 1;
      last = now;
      return tokens >= 0 ? 0 : (-tokens * 1000) / qps;
    },
    forget() {},
    retries: () => 0,
  };
}

/**
 * Combines limiters, as client-go's `MaxOfRateLimiter`: every limiter records the failure, the
 * longest delay wins, `forget` reaches all of them, and `retries` is the largest count.
 */
export function maxOfRateLimiters(...limiters: RateLimiter[]): RateLimiter {
  return {
    when: (key) => Math.max(0, ...limiters.map((limiter) => limiter.when(key))),
    forget(key) {
      for (const limiter of limiters) limiter.forget(key);
    },
    retries: (key) => Math.max(0, ...limiters.map((limiter) => limiter.retries(key))),
  };
}

/**
 * client-go's `DefaultControllerRateLimiter`: the larger of per-key exponential backoff
 * (5 ms doubling up to 1000 s) and an overall token bucket (10 qps, burst 100).
 */
export function defaultControllerRateLimiter(clock: Clock): RateLimiter {
  return maxOfRateLimiters(exponentialRateLimiter(), bucketRateLimiter(clock));
}
