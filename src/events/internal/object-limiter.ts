/**
 * client-go's spam filter: one token bucket per source and object. A bucket starts full with
 * `burst` tokens and gets one back every `refillIntervalMs`; an event that finds it empty is
 * dropped. Buckets are kept least recently used first and bounded (4096, as client-go); a bucket
 * that has refilled completely is the same as a new one, so it is forgotten.
 */
import type { EventRateLimit } from "../options.ts";

/** Buckets kept at most. */
export const maxTrackedObjects = 4096;

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/** Per-key token buckets. */
export class ObjectLimiter {
  readonly #burst: number;
  readonly #refillMs: number;
  readonly #buckets = new Map<string, Bucket>();

  constructor(limit: Required<EventRateLimit>) {
    this.#burst = limit.burst;
    this.#refillMs = limit.refillIntervalMs;
  }

  /** Takes a token from `key`'s bucket; false when it has none. */
  allow(key: string, nowMs: number): boolean {
    this.#sweep(nowMs);
    const bucket = this.#refilled(key, nowMs);
    this.#buckets.delete(key);
    this.#buckets.set(key, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  #refilled(key: string, nowMs: number): Bucket {
    const bucket = this.#buckets.get(key);
    if (!bucket) return { tokens: this.#burst, updatedMs: nowMs };
    const regained = Math.max(0, nowMs - bucket.updatedMs) / this.#refillMs;
    return { tokens: Math.min(this.#burst, bucket.tokens + regained), updatedMs: nowMs };
  }

  #sweep(nowMs: number): void {
    const fullAfterMs = this.#burst * this.#refillMs;
    for (const [key, bucket] of this.#buckets) {
      if (nowMs - bucket.updatedMs < fullAfterMs && this.#buckets.size < maxTrackedObjects) break;
      this.#buckets.delete(key);
    }
  }
}
