/**
 * The isomorphic-event cache: which events happened within the series window, so that a repeat
 * joins its event's series instead of creating an object. Least recently observed first, so
 * expired entries are swept from the front; bounded like client-go's LRU (4096 entries).
 */
import type { SeriesEntry } from "./entry.ts";

/** Entries kept at most; the least recently observed goes first. */
export const maxCachedEvents = 4096;

/** Live series by isomorphism key. */
export class SeriesCache {
  readonly #windowMs: number;
  readonly #entries = new Map<string, SeriesEntry>();

  constructor(windowMs: number) {
    this.#windowMs = windowMs;
  }

  /** The entry of `key` if it was observed within the window, marked most recently used. */
  touch(key: string, nowMs: number): SeriesEntry | undefined {
    this.#sweep(nowMs);
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry;
  }

  /** Adds a new entry, replacing an expired one of the same key and evicting beyond the bound. */
  add(entry: SeriesEntry): void {
    this.#entries.delete(entry.key);
    this.#entries.set(entry.key, entry);
    for (const key of this.#entries.keys()) {
      if (this.#entries.size <= maxCachedEvents) break;
      this.#entries.delete(key);
    }
  }

  /** Forgets `entry` (not a newer entry of the same key). */
  delete(entry: SeriesEntry): void {
    if (this.#entries.get(entry.key) === entry) this.#entries.delete(entry.key);
  }

  #sweep(nowMs: number): void {
    for (const [key, entry] of this.#entries) {
      if (nowMs - entry.lastObservedMs <= this.#windowMs) break;
      this.#entries.delete(key);
    }
  }
}
