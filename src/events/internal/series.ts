/**
 * What the recorder remembers between calls: each recent event and how far its series has got
 * (the isomorphic-event cache), and each object's budget for new Events (client-go's spam
 * filter). Both are bounded maps kept least recently used first, as client-go's LRUs (4096).
 */
import type { EventObject } from "../../api/index.ts";
import type { Timer } from "../../clock/index.ts";
import type { EventRateLimit } from "../options.ts";
import type { SeriesState } from "./event.ts";

/** One event (one isomorphism key within the series window) and its write state. */
export interface SeriesEntry extends SeriesState {
  /** The isomorphism key. */
  readonly key: string;
  /** The Event of the first occurrence: its name, namespace and immutable fields. */
  readonly event: EventObject;
  /** The count the apiserver holds: 0 until the Event is created. */
  written: number;
  /** When the last write started (`-Infinity` before the first). */
  lastWriteMs: number;
  /** A write that is already coming: queued in the sender, or waiting for the update interval. */
  pending?: "queued" | "timer";
  /** The update-interval timer when `pending` is `"timer"`. */
  timer?: Timer;
}

/** The entry of a first occurrence, observed at `nowMs`. */
export function newEntry(key: string, event: EventObject, nowMs: number): SeriesEntry {
  return { key, event, count: 1, lastObservedMs: nowMs, written: 0, lastWriteMs: Number.NEGATIVE_INFINITY };
}

/** `namespace/name` of the entry's Event, for logs. */
export function describeEntry(entry: SeriesEntry): Record<string, unknown> {
  const { namespace, name } = entry.event.metadata;
  return { namespace, name, reason: entry.event.reason, count: entry.count };
}

/** Entries kept at most; the least recently observed goes first. */
const maxCachedEvents = 4096;

/**
 * Live series by isomorphism key: which events happened within the series window, so that a
 * repeat joins its event's series instead of creating an object. Least recently observed first,
 * so expired entries are swept from the front.
 */
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

/** Buckets kept at most. */
const maxTrackedObjects = 4096;

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/**
 * Per-key token buckets, one per source and object. A bucket starts full with `burst` tokens and
 * gets one back every `refillIntervalMs`; an event that finds it empty is dropped. A bucket that
 * has refilled completely is the same as a new one, so it is forgotten.
 */
export class ObjectLimiter {
  readonly #burst: number;
  readonly #refillMs: number;
  readonly #buckets = new Map<string, Bucket>();

  constructor(limit: Required<EventRateLimit>) {
    this.#burst = limit.burst;
    this.#refillMs = limit.refillIntervalMs;
  }

  /** Takes a token from `key`'s bucket; false when it has none. */
  allow(key: string, nowMs: number): boolean {
    this.#sweep(nowMs);
    const bucket = this.#refilled(key, nowMs);
    this.#buckets.delete(key);
    this.#buckets.set(key, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  #refilled(key: string, nowMs: number): Bucket {
    const bucket = this.#buckets.get(key);
    if (!bucket) return { tokens: this.#burst, updatedMs: nowMs };
    const regained = Math.max(0, nowMs - bucket.updatedMs) / this.#refillMs;
    return { tokens: Math.min(this.#burst, bucket.tokens + regained), updatedMs: nowMs };
  }

  #sweep(nowMs: number): void {
    const fullAfterMs = this.#burst * this.#refillMs;
    for (const [key, bucket] of this.#buckets) {
      if (nowMs - bucket.updatedMs < fullAfterMs && this.#buckets.size < maxTrackedObjects) break;
      this.#buckets.delete(key);
    }
  }
}
