/** The recorder's memory of one event: the object it became and how far its series has got. */
import type { EventObject } from "../../api/index.ts";
import type { Timer } from "../../clock/index.ts";
import type { SeriesState } from "./body.ts";

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
