import type { Clock } from "../clock/index.ts";

/** Exponential backoff with full jitter: each delay is uniform in [d/2, d] and `d` doubles up to `maxMs`. */
export class Backoff {
  readonly #initialMs: number;
  readonly #maxMs: number;
  readonly #random: () => number;
  #next: number;

  constructor(initialMs = 800, maxMs = 30_000, random: () => number = Math.random) {
    this.#initialMs = initialMs;
    this.#maxMs = maxMs;
    this.#random = random;
    this.#next = initialMs;
  }

  /**
   * The delay to wait now; the following one will be longer. With `capMs`, this one's `d` is at
   * most `capMs` (jitter as ever), while the sequence goes on growing for the next call without it.
   */
  next(capMs = Number.POSITIVE_INFINITY): number {
    const delay = Math.min(this.#next, capMs) * (0.5 + this.#random() / 2);
    this.#next = Math.min(this.#maxMs, this.#next * 2);
    return delay;
  }

  /** Back to the initial delay (after a success). */
  reset(): void {
    this.#next = this.#initialMs;
  }

  /** Sleeps for {@link Backoff.next} on `clock`. */
  wait(clock: Clock, signal?: AbortSignal): Promise<void> {
    return clock.sleep(this.next(), signal);
  }
}
