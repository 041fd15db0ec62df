/**
 * Owned children, converged level-triggered: {@link ensureChild} makes a child match its desired
 * state (created once, then server-side applied with the controller reference set), writes nothing
 * when it already does, refuses an object of the child's name it does not control, removes what
 * other writers added to an exclusive child, and reports a repair as drift when someone else
 * changed or deleted it.
 */
import type { Logger } from "pino";
import { type ApplyObject, type KubeObject, objectKey, type ResourceType } from "../api/index.ts";
import type { Informer, InformerCache, InformerScope } from "../cache/index.ts";
import {
  AlreadyExistsError,
  type Client,
  ConflictError,
  InvalidError,
  NotFoundError,
  ServerError,
} from "../client/index.ts";
import type { Clock } from "../clock/index.ts";
import { type DriftReporting, lastForeignWriter, reportDrift, type Writer } from "./drift.ts";
import { AlreadyOwnedError, ChildConflictError, ChildReplacedError, InvalidChildError } from "./errors.ts";
import type { ExclusiveOptions } from "./exclusive.ts";
import { warnUnlessOwned } from "./internal/not-owned.ts";
import { childInformer } from "./internal/scope.ts";
import { takeOverContent } from "./internal/take-over.ts";
import { controllerOf, isControlledBy, setControllerReference } from "./owners.ts";

/** What {@link ensureChild} did. */
export type EnsureResult = "created" | "updated" | "unchanged";

/** Options of {@link ensureChild}; `D` is the type of its `desired` object. */
export interface EnsureChildOptions<C extends KubeObject, D extends ApplyObject<C> = ApplyObject<C>> {
  /**
   * Whether the stored child already is as desired. Default {@link containsDesired} on the body,
   * and {@link metadataMatches}: every field set in `desired` has the same value in `actual`
   * (fields the server adds are ignored).
   */
  matches?: (desired: D, actual: C) => boolean;
  /**
   * Adopt an existing object of the child's name that no object controls (it has no controller
   * reference) instead of refusing it with {@link ChildConflictError}. Risky: such an object may
   * hold someone else's data, and once adopted, deleting the owner deletes it (garbage collection),
   * and an exclusive child loses whatever it holds beyond `desired`. Only for objects known to be
   * this operator's own, e.g. created by an earlier version without owner references. An object
   * another owner controls is never adopted. Default `false`.
   */
  adopt?: boolean;
  /**
   * Whether the child is exclusive, as children the operator fully generates are: fields of its
   * content (all but `metadata` and `status`) that other managers added and `desired` does not
   * have are removed, and the repair is reported as drift; their claims on the rest of the content
   * go to this controller, so a child a previous operator wrote becomes this one's. Default `true`.
   * Pass `false` for a child others legitimately add to, or {@link ExclusiveOptions} to allow more
   * co-writers than {@link defaultCoWriters}.
   */
  exclusive?: boolean | ExclusiveOptions;
}

/**
 * A kind its controller declared with `owns()`, and its informer's scope; a controller's
 * `WatchedKind` fits, and `ctx.owned` lists them.
 *
 * @example
 * ```ts
 * controller(host).for(Widget).owns(ConfigMap, { scope: { namespace: "apps" } }).reconcile(reconcileWidget);
 * // in reconcileWidget: ctx.owned is [{ type: ConfigMap, scope: { namespace: "apps" } }]
 * ```
 */
export interface OwnedKind {
  readonly type: ResourceType;
  /** Absent: the cache's default scope for the kind. */
  readonly scope?: InformerScope;
}

/** The parts of a reconcile context {@link ensureChild} uses; a `ReconcileContext` fits. */
export interface ChildContext extends DriftReporting {
  readonly client: Client;
  readonly cache: InformerCache;
  /**
   * The kinds the controller owns, with their scopes: a child is read through the informer its
   * controller watches it with. Without a declaration for the kind, the cache's default is used,
   * and `log` is warned (once per kind) that the controller does not own it.
   */
  readonly owned?: readonly OwnedKind[];
  /** Where a child of a kind missing from `owned` is warned about. */
  readonly log?: Pick<Logger, "warn">;
  /** Labels every child gets (`ReconcileContext.childLabels`: a sharded manager's routing). */
  readonly childLabels?: Readonly<Record<string, string>>;
  /** The time of the field ownership an exclusive child's take-over records. Default the system clock. */
  readonly clock?: Pick<Clock, "now">;
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

/**
 * True when `actual` carries the labels and annotations `desired` sets, and each of its owner
 * references. Owner references are a set keyed by uid: another owner's reference, in any position,
 * is no difference.
 *
 * @example
 * ```ts
 * const matches = (want: JobObject, have: JobObject) =>
 *   metadataMatches(want, have) && have.spec.parallelism === want.spec.parallelism;
 * ```
 */
export function metadataMatches(desired: KubeObject, actual: KubeObject): boolean {
  const { labels, annotations, ownerReferences = [] } = desired.metadata;
  const actualRefs = actual.metadata.ownerReferences ?? [];
  return (
    containsDesired({ labels, annotations }, actual.metadata) &&
    ownerReferences.every((ref) => actualRefs.some((have) => containsDesired(ref, have)))
  );
}

const defaultMatches = <C extends KubeObject>(desired: ApplyObject<C>, actual: C) => {
  const { metadata: _, ...body } = desired;
  return containsDesired(body, actual) && metadataMatches(desired, actual);
};

/**
 * Makes the child `desired` (owned by `owner`) exist as desired. Reads it through the informer of
 * the scope declared with `owns()`; creates it when missing, applies it with the client's field
 * manager when it differs, and reports drift — a Warning event naming who changed it and
 * `kubeloop_drift_repairs_total{kind,manager}` — when someone else made the difference or deleted
 * it. An exclusive child (the default) also loses what other writers added, in one JSON patch that
 * also drops their claims on its content: a child a previous operator created or updated becomes
 * this controller's, and then settles. An object of the
 * child's name this owner does not control is left untouched: {@link AlreadyOwnedError} when
 * another object controls it, {@link ChildConflictError} when none does (unless `adopt`). A child
 * the apiserver refuses as invalid throws {@link InvalidChildError}, which the controller treats as
 * terminal until something changes. Does nothing while the owner is being deleted.
 *
 * @example
 * ```ts
 * try {
 *   await ensureChild(ctx, proxy, ConfigMap, desiredConfigMap(proxy));
 * } catch (err) {
 *   if (err instanceof ChildConflictError) return reportConflict(ctx, proxy, err.message);
 *   throw err;
 * }
 * ```
 */
export async function ensureChild<C extends KubeObject, D extends ApplyObject<C> = ApplyObject<C>>(
  ctx: ChildContext,
  owner: KubeObject,
  type: ResourceType<C>,
  desired: D,
  opts: EnsureChildOptions<C, D> = {},
): Promise<EnsureResult> {
  if (owner.metadata.deletionTimestamp) return "unchanged";
  setControllerReference(owner, desired, type.namespaced);
  if (ctx.childLabels) desired.metadata.labels = { ...desired.metadata.labels, ...ctx.childLabels };
  warnUnlessOwned(ctx.owned, type, () => ctx.log);
  const informer = childInformer(ctx.cache, ctx.owned, type, desired);
  const key = objectKey(
    type.namespaced ? desired.metadata.namespace : undefined,
    desired.metadata.name ?? "",
  );
  // `matches` only ever sees this `desired`, so widening its parameter from D is safe.
  const child: Child<C> = { ctx, owner, type, desired, opts: opts as EnsureChildOptions<C>, informer, key };
  const cached = informer.store.get(key);
  return cached ? converge(child, cached, () => read(child)) : create(child);
}

/** One {@link ensureChild} call: what it converges, and where. */
interface Child<C extends KubeObject> {
  readonly ctx: ChildContext;
  readonly owner: KubeObject;
  readonly type: ResourceType<C>;
  readonly desired: ApplyObject<C>;
  readonly opts: EnsureChildOptions<C>;
  readonly informer: Informer<C>;
  readonly key: string;
}

/**
 * Creates a child the cache does not hold. A create, not an apply: an apply would take over an
 * object of that name the cache has not seen (just created, or outside the informer's scope),
 * where a create fails on it. One request, and no race; only an existing object is read, and
 * judged like a cached one.
 */
async function create<C extends KubeObject>(child: Child<C>): Promise<EnsureResult> {
  const { ctx, owner, type, desired, informer, key } = child;
  try {
    // The apiserver judges whether the apply configuration is a whole object (InvalidChildError if not).
    await ctx.client.create(type, desired as C);
  } catch (err) {
    if (!(err instanceof AlreadyExistsError)) throw invalidChildOr(child, err);
    const live = await read(child);
    return converge(child, live, async () => live);
  }
  // Only a child this owner controlled was "deleted behind its back"; the last state of a child of
  // an earlier owner with the same name (deleted and created again) is no drift.
  const lastState = informer.tombstone(key);
  if (lastState && isControlledBy(lastState, owner))
    reportDrift(ctx, owner, desired, "deleted", lastForeignWriter(lastState, ctx.client.fieldManager));
  return "created";
}

/**
 * Converges the existing object `actual` (cached, or from the apiserver): refuses it unless this
 * owner controls it (or may adopt it), applies `desired` when it differs, and removes what others
 * added. `live` reads the object with its full field sets; after an apply, its answer has them.
 */
async function converge<C extends KubeObject>(
  child: Child<C>,
  actual: C,
  live: () => Promise<C>,
): Promise<EnsureResult> {
  const { ctx, owner, desired, opts } = child;
  const ours = claim(child, actual);
  if (ours && (opts.matches ?? defaultMatches)(desired, actual)) {
    const taken = await takeOverContent(child, actual, live, () => read(child));
    if (taken?.removedBy) reportDrift(ctx, owner, actual, "modified", taken.removedBy);
    return taken ? "updated" : "unchanged";
  }
  const culprit = ours ? await writerOfChange(child, actual, live) : undefined;
  const applied = await applyTo(child, actual);
  const taken = await takeOverContent(
    child,
    applied,
    async () => applied,
    () => read(child),
  );
  const by = culprit ?? taken?.removedBy;
  if (ours && by) reportDrift(ctx, owner, actual, "modified", by);
  return "updated";
}

/** True when this owner controls `actual`; false when it may adopt it; throws otherwise. */
function claim<C extends KubeObject>(child: Child<C>, actual: C): boolean {
  const controller = controllerOf(actual);
  if (controller?.uid === child.owner.metadata.uid) return true;
  if (controller) throw new AlreadyOwnedError(describe(child), controller);
  if (!child.opts.adopt) throw new ChildConflictError(describe(child));
  return false;
}

/**
 * Applies `desired` to the object `actual` is and no other: its uid goes along as a precondition,
 * so an object deleted or replaced since it was read fails the apply instead of being taken over.
 */
async function applyTo<C extends KubeObject>(child: Child<C>, actual: C): Promise<C> {
  const { ctx, type, desired } = child;
  const uid = actual.metadata.uid;
  const body = uid ? { ...desired, metadata: { ...desired.metadata, uid } } : desired;
  try {
    return await ctx.client.apply(type, body, { force: true });
  } catch (err) {
    const replaced =
      err instanceof ConflictError ||
      (err instanceof InvalidError && err.causes.some((c) => c.field === "metadata.uid"));
    throw replaced ? new ChildReplacedError(describe(child), err) : invalidChildOr(child, err);
  }
}

/**
 * `err` as an {@link InvalidChildError} when the apiserver refused the child as invalid, else as
 * is: a 422 (or 400) `Invalid`, or the 500 server-side apply answers for a body that does not fit
 * the kind's schema (`failed to create typed patch object (...): .spec.x: field not declared in
 * schema`, a wrong type, two list entries of one key; checked against kube-apiserver 1.36). That
 * 500 is as final as a 422: the same body is refused again until the owner's spec changes.
 */
function invalidChildOr<C extends KubeObject>(child: Child<C>, err: unknown): unknown {
  if (err instanceof InvalidError) return new InvalidChildError(describe(child), err);
  if (err instanceof ServerError && err.statusCode === 500 && typedPatchRefusal.test(err.status.message)) {
    return new InvalidChildError(describe(child), new InvalidError(err.status, err.request));
  }
  return err;
}

/** How server-side apply's 500 for a body that does not fit the schema begins. */
const typedPatchRefusal = /^failed to create typed patch object\b/;

/**
 * Who made `actual` differ from `desired`, when someone other than this controller wrote since
 * it did: the most recent such writer that owns a field `desired` sets (from the full field sets;
 * the last foreign writer when they cannot be read). A tool that only added a label is no drift,
 * and an update the owner's spec caused is not blamed on it.
 */
async function writerOfChange<C extends KubeObject>(
  child: Child<C>,
  actual: C,
  live: () => Promise<C>,
): Promise<Writer | undefined> {
  const own = child.ctx.client.fieldManager;
  const writer = lastForeignWriter(actual, own);
  if (!writer || !wroteAfterUs(actual, writer, own)) return undefined;
  return live().then(
    (fresh) => writerOfDesired(fresh, child.desired, own),
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

/** The child as the apiserver has it, with its full field sets. */
async function read<C extends KubeObject>(child: Child<C>): Promise<C> {
  const { ctx, type, desired } = child;
  try {
    return await ctx.client.get(type, desired.metadata.name ?? "", { namespace: desired.metadata.namespace });
  } catch (err) {
    throw err instanceof NotFoundError ? new ChildReplacedError(describe(child), err) : err;
  }
}

function describe(child: Pick<Child<KubeObject>, "type" | "key">): string {
  return `${child.type.kind} ${child.key}`;
}
