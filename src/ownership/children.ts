/**
 * Owned children, converged level-triggered: {@link ensureChild} makes a child match its desired
 * state (server-side apply, controller reference set), writes nothing when it already does, and
 * reports a repair as drift when someone else changed or deleted it.
 */
import { type KubeObject, objectKey, type ResourceType } from "../api/index.ts";
import type { InformerCache } from "../cache/index.ts";
import type { Client } from "../client/index.ts";
import { type DriftReporting, lastForeignWriter, reportDrift, type Writer } from "./drift.ts";
import { AlreadyOwnedError } from "./errors.ts";
import { controllerOf, isControlledBy, setControllerReference } from "./owners.ts";

/** What {@link ensureChild} did. */
export type EnsureResult = "created" | "updated" | "unchanged";

/** Options of {@link ensureChild}. */
export interface EnsureChildOptions<C extends KubeObject> {
  /**
   * Whether the stored child already is as desired. Default {@link containsDesired}: every field
   * set in `desired` has the same value in `actual` (fields the server adds are ignored).
   */
  matches?: (desired: C, actual: C) => boolean;
}

/** The parts of a reconcile context {@link ensureChild} uses; a `ReconcileContext` fits. */
export interface ChildContext extends DriftReporting {
  readonly client: Client;
  readonly cache: InformerCache;
}

/** True when every value set in `desired` equals the one at the same path in `actual`. */
export function containsDesired(desired: unknown, actual: unknown): boolean {
  if (desired === null || typeof desired !== "object") return desired === actual;
  if (actual === null || typeof actual !== "object") return false;
  if (Array.isArray(desired)) {
    return (
      Array.isArray(actual) &&
      desired.length === actual.length &&
      desired.every((d, i) => containsDesired(d, actual[i]))
    );
  }
  return Object.entries(desired).every(
    ([key, value]) => value === undefined || containsDesired(value, (actual as Record<string, unknown>)[key]),
  );
}

const defaultMatches = <C extends KubeObject>(desired: C, actual: C) => {
  const { metadata, ...body } = desired;
  const { labels, annotations, ownerReferences = [] } = metadata;
  // Owner references are a set keyed by uid: another owner's reference is not a difference.
  const actualRefs = actual.metadata.ownerReferences ?? [];
  return (
    containsDesired(body, actual) &&
    containsDesired({ labels, annotations }, actual.metadata) &&
    ownerReferences.every((ref) => actualRefs.some((have) => containsDesired(ref, have)))
  );
};

/**
 * Makes the child `desired` (owned by `owner`) exist as desired. Reads the child from the cache
 * (declare it with `owns()`), applies it with the client's field manager when it is missing or
 * differs, and reports drift — a Warning event naming who changed it and
 * `kubeloop_drift_repairs_total{kind,manager}` — when the difference was made by someone else. Refuses to
 * adopt a child controlled by another object ({@link AlreadyOwnedError}). Does nothing while the
 * owner is being deleted.
 */
export async function ensureChild<C extends KubeObject>(
  ctx: ChildContext,
  owner: KubeObject,
  type: ResourceType<C>,
  desired: C,
  opts: EnsureChildOptions<C> = {},
): Promise<EnsureResult> {
  if (owner.metadata.deletionTimestamp) return "unchanged";
  setControllerReference(owner, desired, type.namespaced);
  const informer = ctx.cache.informer(type);
  const key = objectKey(
    type.namespaced ? desired.metadata.namespace : undefined,
    desired.metadata.name ?? "",
  );
  const actual = informer.store.get(key);
  const own = ctx.client.fieldManager;
  if (!actual) {
    await ctx.client.apply(type, desired, { force: true });
    // Only a child this owner controlled was "deleted behind its back"; the last state of a child of
    // an earlier owner with the same name (deleted and created again) is no drift.
    const lastState = informer.tombstone(key);
    if (lastState && isControlledBy(lastState, owner))
      reportDrift(ctx, owner, desired, "deleted", lastForeignWriter(lastState, own));
    return "created";
  }
  const controller = controllerOf(actual);
  if (controller && controller.uid !== owner.metadata.uid) {
    throw new AlreadyOwnedError(`${type.kind} ${key}`, controller);
  }
  if ((opts.matches ?? defaultMatches)(desired, actual)) return "unchanged";
  const writer = lastForeignWriter(actual, own);
  const culprit =
    writer && wroteAfterUs(actual, writer, own)
      ? await writerOfDesired(ctx, type, desired, own).catch(() => writer)
      : undefined;
  await ctx.client.apply(type, desired, { force: true });
  if (culprit) reportDrift(ctx, owner, actual, "modified", culprit);
  return "updated";
}

/**
 * The cache only says who wrote last, not what. Reads the child's field sets (one GET, only when
 * someone else wrote since this controller did) and returns the most recent such writer that owns
 * a field `desired` sets: a tool that only added a label is no drift, and an update the owner's
 * spec caused is not blamed on it.
 */
async function writerOfDesired<C extends KubeObject>(
  ctx: ChildContext,
  type: ResourceType<C>,
  desired: C,
  own: string,
): Promise<Writer | undefined> {
  const fresh = await ctx.client.get(type, desired.metadata.name ?? "", {
    namespace: desired.metadata.namespace,
  });
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
