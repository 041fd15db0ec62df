import { type Clock, systemClock } from "../clock/index.ts";
import { DelayedAdds } from "./internal/delayed.ts";
import { mergeTally, type ReasonTally, reasonList } from "./internal/reasons.ts";
import { requireNumber } from "./internal/validate.ts";
import { Waiters } from "./internal/waiters.ts";
import type { QueueItem } from "./item.ts";
import { noopQueueMetrics, type QueueMetrics } from "./metrics.ts";
import { defaultControllerRateLimiter, type RateLimiter } from "./rate-limit.ts";

/** Options of {@link WorkQueue}. */
export interface WorkQueueOptions {
  /** Source of time for delays, durations and the default rate limiter. Default {@link systemClock}. */
  clock?: Clock;
  /** Decides the delay of {@link WorkQueue.addRateLimited}. Default {@link defaultControllerRateLimiter}. */
  rateLimiter?: RateLimiter;
  /** Instrumentation hooks. Default {@link noopQueueMetrics}. */
  metrics?: QueueMetrics;
}

/** A key that is queued (or held back while in flight) and not yet handed out. */
interface Queued {
  reasons: ReasonTally;
  queuedAt: number;
}

/**
 * A queue of keys with client-go workqueue semantics: duplicates collapse (their reasons add
 * up), a key is never handed to two consumers at once, delayed and rate-limited adds, and
 * graceful shutdown. See the `queue` module documentation for an example.
 */
export class WorkQueue {
  readonly #clock: Clock;
  readonly #limiter: RateLimiter;
  readonly #metrics: QueueMetrics;
  readonly #delayed: DelayedAdds;
  /** Keys queued and not yet handed out, including keys held back while in flight ("dirty"). */
  readonly #queued = new Map<string, Queued>();
  /** Keys that can be handed out now, in order of readiness. */
  readonly #ready = new Set<string>();
  /** Keys being processed → when they were handed out. */
  readonly #processing = new Map<string, number>();
  readonly #consumers = new Waiters<QueueItem | undefined>();
  readonly #drains = new Waiters<void>();
  #shuttingDown = false;

  constructor(options: WorkQueueOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#limiter = options.rateLimiter ?? defaultControllerRateLimiter(this.#clock);
    this.#metrics = options.metrics ?? noopQueueMetrics;
    this.#delayed = new DelayedAdds(this.#clock, (key, reasons) => this.#enqueue(key, reasons));
  }

  /** Number of keys ready to be handed out now (not counting delayed or in-flight keys). */
  get length(): number {
    return this.#ready.size;
  }

  /**
   * Queues `key` now. A key already queued stays where it is and only gains `reason`; a key
   * in flight is queued again once, when it is {@link done}. Ignored after shutdown.
   */
  add(key: string, reason: string): void {
    if (this.#shuttingDown) return;
    this.#enqueue(key, new Map([[reason, 1]]));
  }

  /**
   * Queues `key` after `ms` milliseconds (at once when `ms <= 0`). A key already waiting keeps
   * the sooner of its two times, and collects both reasons. Ignored after shutdown.
   */
  addAfter(key: string, ms: number, reason: string): void {
    requireNumber("addAfter ms", ms);
    if (ms <= 0) {
      this.add(key, reason);
    } else if (!this.#shuttingDown) {
      this.#metrics.retried();
      this.#delayed.schedule(key, ms, reason);
    }
  }

  /** Queues `key` after the delay the rate limiter gives it: `addAfter(key, limiter.when(key), reason)`. */
  addRateLimited(key: string, reason: string): void {
    if (this.#shuttingDown) return;
    this.addAfter(key, this.#limiter.when(key), reason);
  }

  /** Resets `key`'s backoff in the rate limiter; call it when `key` was processed successfully. */
  forget(key: string): void {
    this.#limiter.forget(key);
  }

  /** How many rate-limited retries of `key` the rate limiter has on record. */
  retries(key: string): number {
    return this.#limiter.retries(key);
  }

  /**
   * Waits for the next ready key and marks it in flight until {@link done}. Resolves `undefined`
   * once the queue is shut down (for {@link shutDownWithDrain}: once nothing is left to hand
   * out); rejects with the signal's reason if `signal` aborts first.
   */
  get(signal?: AbortSignal): Promise<QueueItem | undefined> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const item = this.#take();
    if (item || this.#exhausted()) return Promise.resolve(item);
    return this.#consumers.wait(signal);
  }

  /**
   * Ends the processing of `key`. If it was added meanwhile, it is queued again (once). Does
   * nothing for a key that is not in flight.
   */
  done(key: string): void {
    const startedAt = this.#processing.get(key);
    if (startedAt === undefined) return;
    this.#processing.delete(key);
    this.#metrics.workDuration(this.#secondsSince(startedAt));
    if (this.#queued.has(key)) this.#makeReady(key);
    this.#settle();
  }

  /**
   * Stops the queue: later adds are ignored, queued and delayed keys are dropped, and every
   * `get` resolves `undefined`. Keys in flight may still be marked {@link done}.
   */
  shutDown(): void {
    this.#stop();
    this.#queued.clear();
    this.#ready.clear();
    this.#metrics.depth(0);
    this.#settle();
  }

  /**
   * Stops the queue gracefully: later adds and delayed keys are dropped, but keys already queued
   * (and keys added while in flight) are still handed out. Resolves when none is left queued or
   * in flight; rejects with the signal's reason if `signal` aborts first (the queue stays shut
   * down either way).
   */
  shutDownWithDrain(signal?: AbortSignal): Promise<void> {
    this.#stop();
    const drained = this.#drains.wait(signal);
    this.#settle();
    return drained;
  }

  /** `workqueue_unfinished_work_seconds`: the summed time, so far, of every key in flight. */
  unfinishedWorkSeconds(): number {
    let total = 0;
    for (const startedAt of this.#processing.values()) total += this.#secondsSince(startedAt);
    return total;
  }

  /** `workqueue_longest_running_processor_seconds`: how long the oldest key in flight has run. */
  longestRunningProcessorSeconds(): number {
    let oldest = this.#clock.now();
    for (const startedAt of this.#processing.values()) oldest = Math.min(oldest, startedAt);
    return this.#secondsSince(oldest);
  }

  #enqueue(key: string, reasons: ReasonTally): void {
    const queued = this.#queued.get(key);
    if (queued) {
      mergeTally(queued.reasons, reasons);
      return;
    }
    this.#queued.set(key, { reasons, queuedAt: this.#clock.now() });
    this.#metrics.added();
    this.#metrics.depth(this.#queued.size);
    if (!this.#processing.has(key)) this.#makeReady(key);
  }

  #makeReady(key: string): void {
    this.#ready.add(key);
    while (this.#consumers.size > 0 && this.#ready.size > 0) this.#consumers.wakeOne(this.#take());
  }

  #take(): QueueItem | undefined {
    const key = this.#ready.values().next().value;
    if (key === undefined) return undefined;
    const queued = this.#queued.get(key)!;
    const startedAt = this.#clock.now();
    this.#ready.delete(key);
    this.#queued.delete(key);
    this.#processing.set(key, startedAt);
    this.#metrics.depth(this.#queued.size);
    this.#metrics.queueDuration((startedAt - queued.queuedAt) / 1000);
    return { key, reasons: reasonList(queued.reasons), queuedAt: queued.queuedAt, startedAt };
  }

  #stop(): void {
    this.#shuttingDown = true;
    this.#delayed.clear();
  }

  /** Shut down with nothing left to hand out, now or later. */
  #exhausted(): boolean {
    return this.#shuttingDown && this.#queued.size === 0;
  }

  #settle(): void {
    if (!this.#exhausted()) return;
    this.#consumers.wakeAll(undefined);
    if (this.#processing.size === 0) this.#drains.wakeAll();
  }

  #secondsSince(ms: number): number {
    return (this.#clock.now() - ms) / 1000;
  }
}
