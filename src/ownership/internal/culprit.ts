/**
 * Who changed a child its controller repairs: a writer other than the controller that wrote since
 * it did and owns a field the desired object sets, from the child's `managedFields` (drift
 * attribution, see `../drift.ts`).
 */
import type { KubeObject } from "../../api/index.ts";
import { lastForeignWriter, type Writer } from "../drift.ts";

/**
 * Who made `actual` differ from `desired`, when someone other than this controller (field manager
 * `own`) wrote since it did: the most recent such writer that owns a field `desired` sets (from
 * the full field sets `live` reads; the last foreign writer when they cannot be read). A tool that
 * only added a label is no drift, and an update the owner's spec caused is not blamed on it.
 */
export async function writerOfChange<C extends KubeObject>(
  own: string,
  desired: KubeObject,
  actual: C,
  live: () => Promise<C>,
): Promise<Writer | undefined> {
  const writer = lastForeignWriter(actual, own);
  if (!writer || !wroteAfterUs(actual, writer, own)) return undefined;
  return live().then(
    (fresh) => writerOfDesired(fresh, desired, own),
    () => writer,
  );
}

/** The most recent writer of `fresh`, since this controller's last write, that owns a field `desired` sets. */
function writerOfDesired(fresh: KubeObject, desired: KubeObject, own: string): Writer | undefined {
  const entries = fresh.metadata.managedFields ?? [];
  const ours = entries.filter((e) => e.manager === own).map((e) => e.time ?? "");
  const since = ours.sort().at(-1) ?? "";
  // An entry without a time (a write through /scale) is as recent as any.
  const touching = entries.filter(
    (e) => (e.time === undefined || e.time >= since) && ownsAnyOf(e.fieldsV1, desired),
  );
  return lastForeignWriter({ ...fresh, metadata: { ...fresh.metadata, managedFields: touching } }, own);
}

/** True when a `fieldsV1` set owns a field that `desired` sets (a list counts as one field). */
function ownsAnyOf(fields: unknown, desired: object): boolean {
  if (!fields || typeof fields !== "object") return false;
  return Object.entries(desired).some(([key, value]) => {
    const owned = (fields as Record<string, unknown>)[`f:${key}`];
    if (value === undefined || owned === undefined) return false;
    if (value === null || typeof value !== "object" || Array.isArray(value)) return true;
    return ownsAnyOf(owned, value);
  });
}

/** True when `writer`'s last write is not older than this controller's own last write. */
function wroteAfterUs(obj: KubeObject, writer: Writer, own: string): boolean {
  const ours = (obj.metadata.managedFields ?? []).filter((e) => e.manager === own).map((e) => e.time ?? "");
  const latestOurs = ours.sort().at(-1) ?? "";
  return writer.time === undefined || writer.time >= latestOurs;
}
