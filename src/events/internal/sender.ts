/**
 * The background sender: a bounded FIFO of entries with a write due, drained by one worker that
 * retries transient failures with capped exponential backoff. When the queue is full the oldest
 * pending write is dropped. Nothing here throws to the recorder's callers: failures are counted
 * and logged.
 *
 * One write of an entry creates the Event (with its series when repeats came first), or merge
 * patches its series. A series patch that finds the Event gone creates it again under the same
 * name, and a create that finds the name taken (an earlier attempt that did land) patches
 * instead, as client-go's `recordEvent`.
 */
import { Event, type EventObject } from "../../api/index.ts";
import {
  AlreadyExistsError,
  ApiError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  UnreachableError,
} from "../../client/index.ts";
import type { Clock } from "../../clock/index.ts";
import { KubeloopError } from "../../errors/index.ts";
import type { EventClient, EventLogger, EventRetry } from "../options.ts";
import type { RecorderStats } from "../stats.ts";
import { type SeriesState, seriesField, withSeries } from "./event.ts";
import { describeEntry, type SeriesEntry } from "./series.ts";

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
    // An event in a namespace being deleted has no reader left (and every object there is going
    // too): dropped, counted in the stats, not worth a warning in every operator's log.
    const namespaceGone = err instanceof ForbiddenError && err.deniedBy === "terminating";
    if (!namespaceGone) {
      this.#deps.logger.warn({ err, event: describeEntry(entry) }, `could not write event: ${why}`);
    }
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

/** What a write did, for the recorder's counters. */
type WriteOutcome = "created" | "patched" | "none";

/** Brings the apiserver up to the entry's current count. */
async function writeEntry(
  client: EventClient,
  entry: SeriesEntry,
  signal: AbortSignal,
): Promise<WriteOutcome> {
  const series: SeriesState = { count: entry.count, lastObservedMs: entry.lastObservedMs };
  if (entry.written > 0 && series.count <= entry.written) return "none";
  const outcome =
    entry.written === 0
      ? await createOrPatch(client, entry.event, series, signal)
      : await patchOrCreate(client, entry.event, series, signal);
  entry.written = series.count;
  return outcome;
}

async function createOrPatch(
  client: EventClient,
  event: EventObject,
  series: SeriesState,
  signal: AbortSignal,
): Promise<WriteOutcome> {
  try {
    await client.create(Event, withSeries(event, series), { signal });
    return "created";
  } catch (err) {
    if (!(err instanceof AlreadyExistsError)) throw err;
    return series.count > 1 ? patchSeries(client, event, series, signal) : "none";
  }
}

async function patchOrCreate(
  client: EventClient,
  event: EventObject,
  series: SeriesState,
  signal: AbortSignal,
): Promise<WriteOutcome> {
  try {
    return await patchSeries(client, event, series, signal);
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    await client.create(Event, withSeries(event, series), { signal });
    return "created";
  }
}

async function patchSeries(
  client: EventClient,
  event: EventObject,
  series: SeriesState,
  signal: AbortSignal,
): Promise<WriteOutcome> {
  const { name = "", namespace } = event.metadata;
  await client.patch(Event, name, { series: seriesField(series) }, { type: "merge", namespace, signal });
  return "patched";
}

/**
 * True for failures that say nothing about the event itself: the apiserver unreachable, a
 * network or timeout error (a system or undici error `code`), a 5xx, 429 or a storage conflict.
 * Everything else (invalid, forbidden, namespace gone) would fail the same way again.
 */
function isTransient(err: unknown): boolean {
  if (err instanceof UnreachableError || err instanceof ConflictError) return true;
  if (err instanceof ApiError) return err.statusCode >= 500 || err.statusCode === 429;
  if (err instanceof KubeloopError) return false;
  return typeof (err as { code?: unknown } | null | undefined)?.code === "string";
}
