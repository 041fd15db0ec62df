import { type Clock, systemClock } from "../clock/index.ts";
import { DelayedAdds } from "./internal/delayed.ts";
import { ReadyKeys } from "./internal/ready.ts";
import { mergeTally, type ReasonTally, reasonList } from "./internal/reasons.ts";
import { requireNumber } from "./internal/validate.ts";
import { Waiters } from "./internal/waiters.ts";
import type { QueueItem } from "./item.ts";
import { noopQueueMetrics, type QueueMetrics } from "./metrics.ts";
import { type AddOptions, NORMAL_PRIORITY } from "./priority.ts";
import { defaultControllerRateLimiter, type RateLimiter } from "./rate-limit.ts";

/** Options of {@link WorkQueue}. */
export interface WorkQueueOptions {
  /** Source of time for delays, durations and the default rate limiter. Default {@link systemClock}. */
  clock?: Clock;
  /** Decides the delay of {@link WorkQueue.addRateLimited}. Default {@link defaultControllerRateLimiter}. */
  rateLimiter?: RateLimiter;
  /** Instrumentation hooks. Default {@link noopQueueMetrics}. */
  metrics?: QueueMetrics;
  /**
   * The starvation bound, in milliseconds: a key ready this long is handed out next, whatever
   * its priority (see {@link WorkQueue}). Default 10 000 (10 s); `0` hands keys out in order of
   * readiness only.
   */
  starvationBoundMs?: number;
}

/** A key that is queued (or held back while in flight) and not yet handed out. */
interface Queued {
  reasons: ReasonTally;
  queuedAt: number;
  /** The highest priority it was added with. */
  priority: number;
}

/** A key handed out and not yet done. */
interface InFlight {
  /** Clock time (ms) it was handed out, for the metrics. */
  startedAt: number;
  /** Monotonic time (ms) it was handed out, for its priority's share. */
  startedMs: number;
  /** The priority it was handed out at, charged with its time. */
  priority: number;
}

/**
 * A queue of keys with client-go workqueue semantics — duplicates collapse (their reasons add
 * up), a key is never handed to two consumers at once, delayed and rate-limited adds, graceful
 * shutdown — and controller-runtime's priorities, with fair shares instead of their starvation. See the `queue`
 * module documentation for an example.
 *
 * **Priorities.** Keys of one priority are handed out in the order they became ready. Between
 * priorities, each gets a share of the consumers' time — a key's time runs from {@link get} to
 * {@link done}, and counts while it runs — of weight `2^(priority / 100)`: while keys of several
 * priorities are ready, the next key is the first of the priority that has used the least time
 * for its weight (ties to the higher). So `LOW_PRIORITY` keys get a third of the time while
 * {@link NORMAL_PRIORITY} keys wait too, and are served from the moment they wait, not when the
 * higher priorities run out. With no time passing between takes (as in a drain), that is the
 * highest priority first. A priority with nothing queued or in flight banks no share: it starts
 * again level with the others. A key added again before it is handed out (queued, delayed, or in
 * flight and so queued again on {@link done}) keeps the highest priority it was added with; a
 * ready key raised to a higher priority joins the end of that priority's line.
 *
 * **Starvation bound.** A backstop for priorities whose share is too small for their keys (a
 * priority far below the others, or keys that each take long). When the key that has been ready longest has waited
 * `starvationBoundMs` (default 10 s), it is handed out next, whatever its priority: past the
 * bound, keys go out in the order they became ready, ahead of any key that became ready after
 * them. A key is ready from its add, the end of its delay, or — added while in flight — its
 * `done`. So however much higher-priority work keeps coming, a key waits at most the bound plus
 * the time the consumers take to get through the `n` keys that became ready before it and are
 * still queued when it reaches the bound (`n` is at most the number of keys ready when it became
 * ready): with `c` consumers that each ask for the next key as soon as they are done with one,
 * and no key processed for longer than `d`, it is handed out within
 * `starvationBoundMs + ⌈(n + 1) / c⌉ × d` of becoming ready.
 */
export class WorkQueue {
  readonly #clock: Clock;
  readonly #limiter: RateLimiter;
  readonly #metrics: QueueMetrics;
  readonly #delayed: DelayedAdds;
  /** Keys queued and not yet handed out, including keys held back while in flight ("dirty"). */
  readonly #queued = new Map<string, Queued>();
  /** Keys that can be handed out now, by priority and readiness. */
  readonly #ready: ReadyKeys;
  /** Priority → number of queued keys with it, for `workqueue_depth{priority}`. */
  readonly #depths = new Map<number, number>();
  /** Keys being processed → when (clock and monotonic ms) and at which priority they were handed out. */
  readonly #processing = new Map<string, InFlight>();
  readonly #consumers = new Waiters<QueueItem | undefined>();
  readonly #drains = new Waiters<void>();
  #shuttingDown = false;

  constructor(options: WorkQueueOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#limiter = options.rateLimiter ?? defaultControllerRateLimiter(this.#clock);
    this.#metrics = options.metrics ?? noopQueueMetrics;
    const boundMs = options.starvationBoundMs ?? 10_000;
    requireNumber("starvationBoundMs", boundMs, { min: 0 });
    this.#ready = new ReadyKeys(boundMs);
    this.#delayed = new DelayedAdds(this.#clock, (key, reasons, priority) =>
      this.#enqueue(key, reasons, priority),
    );
  }

  /** Number of keys ready to be handed out now (not counting delayed or in-flight keys). */
  get length(): number {
    return this.#ready.size;
  }

  /**
   * Queues `key` now, at `options.priority` (default {@link NORMAL_PRIORITY}). A key already
   * queued stays where it is and only gains `reason`, or is raised to the higher priority; a key
   * in flight is queued again once, when it is {@link done}. Ignored after shutdown.
   */
  add(key: string, reason: string, options?: AddOptions): void {
    const priority = priorityOf(options);
    if (this.#shuttingDown) return;
    this.#enqueue(key, new Map([[reason, 1]]), priority);
  }

  /**
   * Queues `key` after `ms` milliseconds (at once when `ms <= 0`), at `options.priority` once
   * the delay has passed. A key already waiting keeps the sooner of its two times and the higher
   * of its two priorities, and collects both reasons. Ignored after shutdown.
   */
  addAfter(key: string, ms: number, reason: string, options?: AddOptions): void {
    requireNumber("addAfter ms", ms);
    if (ms <= 0) {
      this.add(key, reason, options);
    } else if (!this.#shuttingDown) {
      const priority = priorityOf(options);
      this.#metrics.retried();
      this.#delayed.schedule(key, ms, reason, priority);
    }
  }

  /**
   * Queues `key` after the delay the rate limiter gives it:
   * `addAfter(key, limiter.when(key), reason, options)`.
   */
  addRateLimited(key: string, reason: string, options?: AddOptions): void {
    if (this.#shuttingDown) return;
    this.addAfter(key, this.#limiter.when(key), reason, options);
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
    const inFlight = this.#processing.get(key);
    if (inFlight === undefined) return;
    this.#processing.delete(key);
    this.#metrics.workDuration(this.#secondsSince(inFlight.startedAt));
    this.#ready.finished(inFlight.priority, inFlight.startedMs, this.#clock.monotonicMs());
    const queued = this.#queued.get(key);
    if (queued) this.#makeReady(key, queued.priority);
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
    for (const priority of this.#depths.keys()) this.#metrics.depth(0, priority);
    this.#depths.clear();
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
    for (const { startedAt } of this.#processing.values()) total += this.#secondsSince(startedAt);
    return total;
  }

  /** `workqueue_longest_running_processor_seconds`: how long the oldest key in flight has run. */
  longestRunningProcessorSeconds(): number {
    let oldest = this.#clock.now();
    for (const { startedAt } of this.#processing.values()) oldest = Math.min(oldest, startedAt);
    return this.#secondsSince(oldest);
  }

  #enqueue(key: string, reasons: ReasonTally, priority: number): void {
    const queued = this.#queued.get(key);
    if (queued) {
      mergeTally(queued.reasons, reasons);
      this.#raise(key, queued, priority);
      return;
    }
    this.#queued.set(key, { reasons, queuedAt: this.#clock.now(), priority });
    this.#metrics.added();
    this.#countDepth(priority, 1);
    if (!this.#processing.has(key)) this.#makeReady(key, priority);
  }

  /** Raises a queued key to `priority` if that is higher than its own. */
  #raise(key: string, queued: Queued, priority: number): void {
    if (priority <= queued.priority) return;
    this.#countDepth(queued.priority, -1);
    this.#countDepth(priority, 1);
    queued.priority = priority;
    this.#ready.raise(key, priority, this.#clock.monotonicMs());
  }

  #makeReady(key: string, priority: number): void {
    this.#ready.push(key, priority, this.#clock.monotonicMs());
    while (this.#consumers.size > 0 && this.#ready.size > 0) this.#consumers.wakeOne(this.#take());
  }

  #take(): QueueItem | undefined {
    const startedMs = this.#clock.monotonicMs();
    const key = this.#ready.take(startedMs);
    if (key === undefined) return undefined;
    const { reasons, queuedAt, priority } = this.#queued.get(key)!;
    const startedAt = this.#clock.now();
    this.#queued.delete(key);
    this.#processing.set(key, { startedAt, startedMs, priority });
    this.#countDepth(priority, -1);
    this.#metrics.queueDuration((startedAt - queuedAt) / 1000);
    return { key, reasons: reasonList(reasons), queuedAt, startedAt, priority };
  }

  /** Adds `delta` to the number of queued keys at `priority`, and reports the new number. */
  #countDepth(priority: number, delta: number): void {
    const keys = (this.#depths.get(priority) ?? 0) + delta;
    if (keys === 0) this.#depths.delete(priority);
    else this.#depths.set(priority, keys);
    this.#metrics.depth(keys, priority);
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

/** The priority `options` ask for, checked: a finite number, {@link NORMAL_PRIORITY} by default. */
function priorityOf(options: AddOptions | undefined): number {
  const priority = options?.priority ?? NORMAL_PRIORITY;
  requireNumber("priority", priority);
  return priority;
}
