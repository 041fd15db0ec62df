import { Line } from "./line.ts";

/** A ready key's priority, and since when (monotonic ms) it has been ready. */
interface Ready {
  priority: number;
  readonly since: number;
}

/**
 * The keys ready to be handed out: one FIFO line per priority, and one line of every key in
 * order of readiness. {@link take} hands out the longest-ready key once it has waited the
 * starvation bound, and otherwise the first key of the highest priority. Every operation is
 * O(1) but for a walk over the priorities seen so far (two, as controllers use it).
 */
export class ReadyKeys {
  readonly #boundMs: number;
  readonly #byAge = new Line<Ready>();
  readonly #levels = new Map<number, Line<Ready>>();
  /** Every priority seen, highest first; their lines stay, empty or not, for the next keys. */
  readonly #priorities: number[] = [];

  constructor(boundMs: number) {
    this.#boundMs = boundMs;
  }

  /** Number of ready keys. */
  get size(): number {
    return this.#byAge.size;
  }

  /** Makes `key`, which must not be ready yet, ready at `priority` from `now` on. */
  push(key: string, priority: number, now: number): void {
    const ready: Ready = { priority, since: now };
    this.#byAge.push(key, ready);
    this.#level(priority).push(key, ready);
  }

  /**
   * Moves a ready `key` to the end of `priority`'s line if that is higher than its own; it keeps
   * its place in the order of readiness. Does nothing for a key that is not ready.
   */
  raise(key: string, priority: number): void {
    const ready = this.#byAge.get(key);
    if (!ready || priority <= ready.priority) return;
    this.#level(ready.priority).delete(key);
    ready.priority = priority;
    this.#level(priority).push(key, ready);
  }

  /**
   * Removes and returns the next key: the longest-ready one if by `now` it has waited the bound,
   * else the first of the highest priority.
   */
  take(now: number): string | undefined {
    const oldest = this.#byAge.first();
    if (!oldest) return undefined;
    const next = now - oldest.value.since >= this.#boundMs ? oldest : (this.#highest() ?? oldest);
    this.#byAge.delete(next.key);
    this.#level(next.value.priority).delete(next.key);
    return next.key;
  }

  /** Removes every key. */
  clear(): void {
    this.#byAge.clear();
    for (const level of this.#levels.values()) level.clear();
  }

  /** The first key of the highest priority that has one. */
  #highest(): { readonly key: string; readonly value: Ready } | undefined {
    for (const priority of this.#priorities) {
      const first = this.#levels.get(priority)!.first();
      if (first) return first;
    }
    return undefined;
  }

  #level(priority: number): Line<Ready> {
    let level = this.#levels.get(priority);
    if (!level) {
      level = new Line();
      this.#levels.set(priority, level);
      const below = this.#priorities.findIndex((p) => p < priority);
      this.#priorities.splice(below === -1 ? this.#priorities.length : below, 0, priority);
    }
    return level;
  }
}
