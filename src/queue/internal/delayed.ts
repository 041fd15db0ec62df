import type { Clock, Timer } from "../../clock/index.ts";
import { type ReasonTally, tally } from "./reasons.ts";

interface Waiting {
  at: number;
  timer?: Timer;
  reasons: ReasonTally;
  priority: number;
}

/**
 * Keys waiting for a delay to pass before they are queued. A key waits at most once: adding it
 * again keeps the sooner time and the higher priority, and accumulates the reasons. As in
 * client-go's delaying queue, a waiting key stays waiting when it is also queued directly.
 */
export class DelayedAdds {
  readonly #clock: Clock;
  readonly #onReady: (key: string, reasons: ReasonTally, priority: number) => void;
  readonly #waiting = new Map<string, Waiting>();

  constructor(clock: Clock, onReady: (key: string, reasons: ReasonTally, priority: number) => void) {
    this.#clock = clock;
    this.#onReady = onReady;
  }

  /**
   * Queues `key` at `priority` in `ms` milliseconds, or sooner if it is already waiting for a
   * sooner time; at the higher priority if it is already waiting at one.
   */
  schedule(key: string, ms: number, reason: string, priority: number): void {
    const at = this.#clock.monotonicMs() + ms;
    const entry: Waiting = this.#waiting.get(key) ?? {
      at: Number.POSITIVE_INFINITY,
      reasons: new Map(),
      priority,
    };
    tally(entry.reasons, reason);
    entry.priority = Math.max(entry.priority, priority);
    this.#waiting.set(key, entry);
    if (at >= entry.at) return;
    entry.timer?.cancel();
    entry.at = at;
    entry.timer = this.#clock.setTimer(ms, () => this.#fire(key, entry));
  }

  /** Drops every waiting key and cancels its timer. */
  clear(): void {
    for (const entry of this.#waiting.values()) entry.timer?.cancel();
    this.#waiting.clear();
  }

  #fire(key: string, entry: Waiting): void {
    this.#waiting.delete(key);
    this.#onReady(key, entry.reasons, entry.priority);
  }
}
