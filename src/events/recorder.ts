/**
 * The recorder: turns calls into occurrences, occurrences into new Events or series updates,
 * and hands the writes to the background sender. See the module page (`index.ts`) for the rules.
 */
import { type EventInput, eventBody, eventKey, rateLimitKey, toOccurrence } from "./internal/event.ts";
import { type ResolvedOptions, resolveOptions } from "./internal/resolve.ts";
import { Sender } from "./internal/sender.ts";
import { newEntry, ObjectLimiter, SeriesCache, type SeriesEntry } from "./internal/series.ts";
import type { EventClient, EventRecorderOptions, EventType } from "./options.ts";
import type { EventSubject } from "./reference.ts";
import type { RecorderStats } from "./stats.ts";

/** Optional parts of one event. */
export interface EventOptions {
  /** A second object the event involves, e.g. the Job a controller created for the regarding object. */
  related?: EventSubject;
}

/**
 * Records events.k8s.io/v1 Events, fire and forget. Every recording method returns at once and
 * never throws; writes happen in the background. Call {@link EventRecorder.close} at shutdown so
 * that pending series updates are written.
 *
 * @example
 * ```ts
 * const recorder = new EventRecorder(client, { reportingController: "example.com/backup-controller" });
 * recorder.normal(backup, "Created", "Create", `created Job ${job.metadata.name}`, { related: job });
 * recorder.warning(backup, "BackupFailed", "Reconcile", err.message);
 * await recorder.close();
 * ```
 */
export class EventRecorder {
  readonly #options: ResolvedOptions;
  readonly #reporter: { reportingController: string; reportingInstance: string };
  readonly #stats: RecorderStats = {
    recorded: 0,
    created: 0,
    seriesUpdates: 0,
    droppedRateLimited: 0,
    droppedQueueFull: 0,
    failed: 0,
  };
  readonly #cache: SeriesCache;
  readonly #limiter: ObjectLimiter | undefined;
  readonly #sender: Sender;
  readonly #scheduled = new Set<SeriesEntry>();
  #closed = false;

  /** Throws `InvalidRecorderOptionError` when an option is out of range; nothing else ever throws. */
  constructor(client: EventClient, options: EventRecorderOptions) {
    this.#options = resolveOptions(options);
    this.#reporter = {
      reportingController: this.#options.reportingController,
      reportingInstance: this.#options.reportingInstance,
    };
    const { clock, logger, maxQueued, retry, rateLimit, seriesWindowMs } = this.#options;
    this.#cache = new SeriesCache(seriesWindowMs);
    this.#limiter = rateLimit ? new ObjectLimiter(rateLimit) : undefined;
    const onAbandoned = (entry: SeriesEntry) => this.#forgetIfUnwritten(entry);
    this.#sender = new Sender({ client, clock, logger, stats: this.#stats, maxQueued, retry, onAbandoned });
  }

  /** The controller named in every Event. */
  get reportingController(): string {
    return this.#reporter.reportingController;
  }

  /** The instance named in every Event. */
  get reportingInstance(): string {
    return this.#reporter.reportingInstance;
  }

  /** A copy of the counters. */
  get stats(): RecorderStats {
    return { ...this.#stats };
  }

  /** Records a `Normal` event about `regarding`: `reason` says what happened, `action` what the controller did. */
  normal(
    regarding: EventSubject,
    reason: string,
    action: string,
    note?: string,
    options?: EventOptions,
  ): void {
    this.event(regarding, "Normal", reason, action, note, options);
  }

  /** Records a `Warning` event about `regarding`. */
  warning(
    regarding: EventSubject,
    reason: string,
    action: string,
    note?: string,
    options?: EventOptions,
  ): void {
    this.event(regarding, "Warning", reason, action, note, options);
  }

  /**
   * Records an event. `note` is cut to the apiserver's 1 KB, `reason` and `action` to 128
   * characters. A malformed call (no name, empty reason or action) is logged and counted, not thrown.
   */
  event(
    regarding: EventSubject,
    type: EventType,
    reason: string,
    action: string,
    note?: string,
    options?: EventOptions,
  ): void {
    try {
      this.#record({ regarding, type, reason, action, note, related: options?.related });
    } catch (err) {
      this.#stats.failed++;
      const message = err instanceof Error ? err.message : String(err);
      this.#options.logger.warn({ err, reason, action }, `event not recorded: ${message}`);
    }
  }

  /**
   * Writes every pending series update now, without waiting for the update interval, and
   * resolves once the sender is idle. Rejects with the signal's reason when `signal` aborts first.
   */
  flush(signal?: AbortSignal): Promise<void> {
    for (const entry of [...this.#scheduled]) this.#release(entry);
    return this.#sender.whenIdle(signal);
  }

  /**
   * Stops recording (later calls are ignored), writes what is pending, and resolves when done;
   * when `signal` aborts first, the writes still pending are given up (counted in `failed`).
   * Never rejects. Safe to call more than once.
   */
  async close(signal?: AbortSignal): Promise<void> {
    this.#closed = true;
    try {
      await this.flush(signal);
    } catch {
      // Aborted: what is left is given up below.
    }
    const { abandoned, stopped } = this.#sender.stop();
    if (abandoned > 0)
      this.#options.logger.warn({ abandoned }, "event recorder closed with event writes pending");
    await stopped;
  }

  #record(input: EventInput): void {
    if (this.#closed) return;
    const now = this.#options.clock.now();
    const occurrence = toOccurrence(input, this.#reporter);
    const key = eventKey(occurrence);
    const existing = this.#cache.touch(key, now);
    if (existing) {
      this.#repeat(existing, now);
      return;
    }
    if (this.#limiter && !this.#limiter.allow(rateLimitKey(occurrence), now)) {
      this.#stats.droppedRateLimited++;
      return;
    }
    const entry = newEntry(key, eventBody(occurrence, now), now);
    this.#cache.add(entry);
    this.#stats.recorded++;
    this.#sender.enqueue(entry);
  }

  #repeat(entry: SeriesEntry, now: number): void {
    entry.count++;
    entry.lastObservedMs = now;
    this.#stats.recorded++;
    if (entry.pending) return; // the write already coming reads the count when it is sent
    const wait = entry.lastWriteMs + this.#options.seriesUpdateIntervalMs - now;
    if (wait <= 0) {
      this.#sender.enqueue(entry);
      return;
    }
    entry.pending = "timer";
    entry.timer = this.#options.clock.setTimer(wait, () => this.#release(entry));
    this.#scheduled.add(entry);
  }

  #release(entry: SeriesEntry): void {
    this.#cancelTimer(entry);
    this.#sender.enqueue(entry);
  }

  #cancelTimer(entry: SeriesEntry): void {
    entry.timer?.cancel();
    entry.timer = undefined;
    if (entry.pending === "timer") entry.pending = undefined;
    this.#scheduled.delete(entry);
  }

  /** An Event that was never created is forgotten, so its next occurrence starts afresh. */
  #forgetIfUnwritten(entry: SeriesEntry): void {
    if (entry.written > 0) return;
    this.#cancelTimer(entry);
    this.#cache.delete(entry);
  }
}
