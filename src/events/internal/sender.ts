/**
 * The background sender: a bounded FIFO of entries with a write due, drained by one worker that
 * retries transient failures with capped exponential backoff. When the queue is full the oldest
 * pending write is dropped. Nothing here throws to the recorder's callers: failures are counted
 * and logged.
 */
import type { Clock } from "../../clock/index.ts";
import type { EventClient, EventLogger, EventRetry } from "../options.ts";
import type { RecorderStats } from "../stats.ts";
import { describeEntry, type SeriesEntry } from "./entry.ts";
import { isTransient } from "./transient.ts";
import { type WriteOutcome, writeEntry } from "./write.ts";

/** What the sender works with. */
export interface SenderDeps {
  client: EventClient;
  clock: Clock;
  logger: EventLogger;
  stats: RecorderStats;
  maxQueued: number;
  retry: Required<EventRetry>;
  /** Called when an entry's pending write is dropped or given up. */
  onAbandoned(entry: SeriesEntry): void;
}

/** Sends entries' writes in order, one at a time. */
export class Sender {
  readonly #deps: SenderDeps;
  #queue: SeriesEntry[] = [];
  readonly #stop = new AbortController();
  #running = false;
  #overflowing = false;
  #idleWaiters: (() => void)[] = [];

  constructor(deps: SenderDeps) {
    this.#deps = deps;
  }

  /** Queues a write of `entry`, dropping the oldest queued one when full. Ignored after {@link stop}. */
  enqueue(entry: SeriesEntry): void {
    if (this.#stop.signal.aborted || entry.pending === "queued") return;
    if (this.#queue.length >= this.#deps.maxQueued) this.#dropOldest();
    entry.pending = "queued";
    this.#queue.push(entry);
    if (!this.#running) this.#start();
  }

  /** Resolves once the queue is empty and no write is in flight; rejects when `signal` aborts first. */
  whenIdle(signal?: AbortSignal): Promise<void> {
    if (!this.#running) return Promise.resolve();
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.#idleWaiters = this.#idleWaiters.filter((w) => w !== done);
        reject(signal?.reason);
      };
      const done = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      this.#idleWaiters.push(done);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /**
   * Stops for good: gives up every queued write and aborts the one in flight. Returns how many
   * queued writes were given up, and a promise of the worker's exit.
   */
  stop(): { abandoned: number; stopped: Promise<void> } {
    this.#stop.abort(new Error("event recorder closed"));
    const abandoned = this.#queue;
    this.#queue = [];
    for (const entry of abandoned) this.#abandon(entry);
    return { abandoned: abandoned.length, stopped: this.whenIdle() };
  }

  #start(): void {
    this.#running = true;
    void this.#run();
  }

  async #run(): Promise<void> {
    await Promise.resolve(); // let the caller's synchronous burst queue up (and coalesce) first
    for (let entry = this.#queue.shift(); entry; entry = this.#queue.shift()) {
      entry.pending = undefined;
      await this.#deliver(entry);
    }
    this.#running = false;
    this.#overflowing = false;
    for (const waiter of this.#idleWaiters.splice(0)) waiter();
  }

  async #deliver(entry: SeriesEntry): Promise<void> {
    const { client, clock, retry } = this.#deps;
    for (let attempt = 1; ; attempt++) {
      try {
        entry.lastWriteMs = clock.now();
        this.#count(await writeEntry(client, entry, this.#stop.signal));
        return;
      } catch (err) {
        const retriable = isTransient(err) && attempt < retry.attempts && !this.#stop.signal.aborted;
        if (!retriable || !(await this.#backOff(attempt))) return this.#giveUp(entry, err, attempt);
      }
    }
  }

  /** Waits before attempt `attempt + 1`; false when the sender stopped meanwhile. */
  async #backOff(attempt: number): Promise<boolean> {
    const { baseDelayMs, maxDelayMs } = this.#deps.retry;
    try {
      await this.#deps.clock.sleep(Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1)), this.#stop.signal);
      return true;
    } catch {
      return false;
    }
  }

  #count(outcome: WriteOutcome): void {
    if (outcome === "created") this.#deps.stats.created++;
    if (outcome === "patched") this.#deps.stats.seriesUpdates++;
  }

  #giveUp(entry: SeriesEntry, err: unknown, attempts: number): void {
    this.#queue = this.#queue.filter((queued) => queued !== entry);
    entry.pending = undefined;
    this.#deps.stats.failed++;
    const why = this.#stop.signal.aborted
      ? "the recorder closed first"
      : `giving up after ${attempts} attempt(s)`;
    this.#deps.logger.warn({ err, event: describeEntry(entry) }, `could not write event: ${why}`);
    this.#deps.onAbandoned(entry);
  }

  #dropOldest(): void {
    const oldest = this.#queue.shift();
    if (!oldest) return;
    oldest.pending = undefined;
    this.#deps.stats.droppedQueueFull++;
    if (!this.#overflowing) {
      this.#deps.logger.warn(
        { event: describeEntry(oldest), maxQueued: this.#deps.maxQueued },
        "event queue is full: dropping the oldest pending event writes until it drains",
      );
    }
    this.#overflowing = true;
    this.#deps.onAbandoned(oldest);
  }

  #abandon(entry: SeriesEntry): void {
    entry.pending = undefined;
    this.#deps.stats.failed++;
    this.#deps.onAbandoned(entry);
  }
}
