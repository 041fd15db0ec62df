/**
 * The last reconciles of a controller, for the manager's live page: a ring of fixed size that
 * keeps a reference to each reconcile's queue item (its key, its triggers and their priority, as
 * the queue already made them) with the duration, result and error. Recording one is a single
 * small allocation and an array store, whatever the load (bench/live-recording.ts measures it);
 * reading formats nothing, so a page that is never opened costs nothing more.
 */
import type { QueueItem } from "../queue/index.ts";
import type { ReconcileResult } from "./metrics.ts";

/** How many reconciles a controller remembers: the newest {@link RECENT_RECONCILES} replace the oldest. */
export const RECENT_RECONCILES = 50;

/** One finished reconcile, as a controller remembers it. */
export interface ReconcileRecord {
  /** The queue item it reconciled: `key`, `reasons` (what queued it: `owned:ConfigMap:update`, `resync`...), `priority`, `queuedAt`, `startedAt`. */
  readonly item: QueueItem;
  /** How long the reconcile ran, in seconds. */
  readonly seconds: number;
  /** Its outcome, as `controller_runtime_reconcile_total{result}` counts it. */
  readonly result: ReconcileResult;
  /** What it threw, for `result: "error"`. */
  readonly error?: unknown;
}

/** A ring of the last `capacity` values: pushing past it overwrites the oldest. */
export class Ring<T> {
  readonly #slots: T[] = [];
  readonly #capacity: number;
  #next = 0;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** Keeps `value`, forgetting the oldest when full. */
  push(value: T): void {
    this.#slots[this.#next] = value;
    this.#next = (this.#next + 1) % this.#capacity;
  }

  /** The values kept, newest first. */
  newestFirst(): T[] {
    const older = this.#slots.slice(this.#next);
    const newer = this.#slots.slice(0, this.#next);
    return [...older, ...newer].reverse();
  }
}
