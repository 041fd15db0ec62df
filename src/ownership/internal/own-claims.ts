/**
 * The operator's own claims out of the way of its apply's pruning. Server-side apply removes a
 * field the operator stops applying only when no other entry claims it, but every write of the
 * operator other than an apply records an `Update` entry under its own name: its create (claiming
 * every field it sent, and those defaulted with them), a take-over patch that changed a value, a
 * reconciler's own update. A field the desired object drops would stay forever. So before an
 * apply of a changed desired object, those entries are merged into the operator's `Apply` entry,
 * as client-go's `csaupgrade.UpgradeManagedFields` does: one JSON patch of `managedFields`,
 * preconditioned on the version read, that changes nothing else (no new generation, no rollout).
 * The apply then prunes what the desired object dropped; defaulted fields it does not set go too,
 * and the apiserver defaults them again (owned by nobody from then on).
 */
import type { KubeObject, ManagedFieldsEntry } from "../../api/index.ts";
import { takeOverPatch } from "../exclusive.ts";
import { type FieldSet, unionFields } from "./claims.ts";
import { retryOnConflict } from "./conflict.ts";
import type { ExclusiveChild } from "./take-over.ts";

/**
 * Merges the child's `managedFields` entries of the operator's other operations into its `Apply`
 * entry, when `actual` (the cache's summary is enough) shows one. `live` reads the field sets,
 * `reread` reads the child again after a conflict. Answers the resourceVersion its patch answered,
 * undefined when it wrote nothing.
 */
export async function mergeOwnClaims<C extends KubeObject>(
  child: Pick<ExclusiveChild<C>, "ctx" | "type">,
  actual: C,
  live: () => Promise<C>,
  reread: () => Promise<C>,
): Promise<string | undefined> {
  const { ctx, type } = child;
  const own = ctx.client.fieldManager;
  if (!(actual.metadata.managedFields ?? []).some((e) => isOwnUpdate(e, own))) return undefined;
  return retryOnConflict(live, reread, async (fresh) => {
    const managedFields = mergedOwnClaims(fresh.metadata.managedFields ?? [], own);
    if (!managedFields) return undefined;
    const { name = "", namespace, resourceVersion = "" } = fresh.metadata;
    const patch = takeOverPatch({ removed: [], managedFields }, resourceVersion);
    const patched = await ctx.client.patch(type, name, patch, { type: "json", namespace });
    return patched.metadata.resourceVersion;
  });
}

/**
 * `entries` with `own`'s entries of other operations than `Apply` (on the object, not a
 * subresource) merged into its `Apply` entry; the first of them becomes it when it has none. An
 * entry of another version than the `Apply` one names other fields: dropped, not merged. Undefined
 * when there is none to merge.
 */
export function mergedOwnClaims(
  entries: ManagedFieldsEntry[],
  own: string,
): ManagedFieldsEntry[] | undefined {
  const updates = entries.filter((e) => isOwnUpdate(e, own));
  const [first] = updates;
  if (!first) return undefined;
  const target = entries.find((e) => e.manager === own && e.operation === "Apply" && !e.subresource) ?? first;
  const fieldsV1 = updates
    .filter((e) => e.apiVersion === target.apiVersion)
    .reduce(
      (fields, e) => unionFields(fields, (e.fieldsV1 ?? {}) as FieldSet),
      (target.fieldsV1 ?? {}) as FieldSet,
    );
  const merged: ManagedFieldsEntry = { ...target, operation: "Apply", fieldsV1 };
  return entries.flatMap((e) => (e === target ? [merged] : isOwnUpdate(e, own) ? [] : [e]));
}

function isOwnUpdate(entry: ManagedFieldsEntry, own: string): boolean {
  return entry.manager === own && entry.operation !== "Apply" && !entry.subresource;
}
