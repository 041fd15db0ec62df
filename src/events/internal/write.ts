/**
 * One write of an entry: create the Event (with its series when repeats came first), or merge
 * patch its series. A series patch that finds the Event gone creates it again under the same
 * name, and a create that finds the name taken (an earlier attempt that did land) patches
 * instead, as client-go's `recordEvent`.
 */
import { Event, type EventObject } from "../../api/index.ts";
import { AlreadyExistsError, NotFoundError } from "../../client/index.ts";
import type { EventClient } from "../options.ts";
import { type SeriesState, seriesField, withSeries } from "./body.ts";
import type { SeriesEntry } from "./entry.ts";

/** What a write did, for the recorder's counters. */
export type WriteOutcome = "created" | "patched" | "none";

/** Brings the apiserver up to the entry's current count. */
export async function writeEntry(
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
