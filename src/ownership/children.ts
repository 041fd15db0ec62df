/**
 * Owned children, converged level-triggered: {@link ensureChild} makes a child match its desired
 * state (created once, then server-side applied with the controller reference set), writes nothing
 * when it already does, removes what the desired object stopped setting, refuses an object of the
 * child's name it does not control, removes what other writers added to an exclusive child, and
 * reports a repair as drift when someone else changed or deleted it.
 */
import type { Logger } from "pino";
import { type ApplyObject, type KubeObject, objectKey, type ResourceType } from "../api/index.ts";
import type { Informer, InformerCache } from "../cache/index.ts";
import {
  AlreadyExistsError,
  type Client,
  ConflictError,
  InvalidError,
  NotFoundError,
  ServerError,
} from "../client/index.ts";
import type { Clock } from "../clock/index.ts";
import type { OwnedKind } from "../controller/index.ts";
import { type DriftReporting, lastForeignWriter, reportDrift } from "./drift.ts";
import { AlreadyOwnedError, ChildConflictError, ChildReplacedError, InvalidChildError } from "./errors.ts";
import type { ExclusiveOptions } from "./exclusive.ts";
import { writerOfChange } from "./internal/culprit.ts";
import { appliedFingerprint, fingerprintOf, stamped } from "./internal/fingerprint.ts";
import { warnUnlessOwned } from "./internal/not-owned.ts";
import { mergeOwnClaims } from "./internal/own-claims.ts";
import { isReplaced, rememberWrites } from "./internal/own-writes.ts";
import { childInformer } from "./internal/scope.ts";
import { takeOverContent } from "./internal/take-over.ts";
import { controllerOf, isControlledBy, setControllerReference } from "./owners.ts";

/** What {@link ensureChild} did. */
export type EnsureResult = "created" | "updated" | "unchanged";

/** Options of {@link ensureChild}; `D` is the type of its `desired` object. */
export interface EnsureChildOptions<C extends KubeObject, D extends ApplyObject<C> = ApplyObject<C>> {
  /**
   * Whether the stored child already is as desired; when not, `desired` is applied. Default:
   * {@link appliedFrom} (the child was last written from this very desired object, so a field it
   * stops setting is a difference), {@link containsDesired} on the body and {@link metadataMatches}
   * (every field set in `desired` has the same value in `actual`; fields the server adds are
   * ignored). A custom `matches` replaces all three: it may leave out what must not be written
   * again (a Job's immutable pod template) or what others set (`spec.replicas` under an
   * autoscaler); add `appliedFrom(want, have)` to it for dropped fields to be noticed too. Whatever
   * decides the apply, it removes what the desired object no longer sets.
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
  /** Labels every child of `owner` gets (`ReconcileContext.childLabels`: a sharded manager's routing). */
  readonly childLabels?: (owner: KubeObject) => Readonly<Record<string, string>>;
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
 * True when `actual` was last written by {@link ensureChild} from a desired object equal to
 * `desired`: it carries `desired`'s fingerprint (annotation `kubeloop.dev/applied`, a hash of the
 * desired object but for its name, namespace and controller reference). Unlike a comparison with
 * the live child, it sees a field the desired object stopped setting. Part of the default
 * `matches`; a custom one adds it to notice dropped fields.
 *
 * @example
 * ```ts
 * // Repairs drift of the replicas and metadata only; any change of the desired object is applied.
 * const matches = (want: DeploymentObject, have: DeploymentObject) =>
 *   appliedFrom(want, have) && metadataMatches(want, have) && have.spec?.replicas === want.spec?.replicas;
 * ```
 */
export function appliedFrom(desired: KubeObject, actual: KubeObject): boolean {
  return appliedFingerprint(actual) === fingerprintOf(desired);
}

/**
 * True when `actual` carries the labels and annotations `desired` sets, and each of its owner
 * references. Owner references are a set keyed by uid: another owner's reference, in any position,
 * is no difference.
 *
 * @example
 * ```ts
 * const matches = (want: JobObject, have: JobObject) =>
 *   metadataMatches(want, have) && have.spec?.parallelism === want.spec?.parallelism;
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
 * the scope declared with `owns()`; creates it when missing, and applies it with the client's
 * field manager when it is not as desired (`matches`; by default: the desired object changed since
 * the child was last written, or the live child differs). Each write stamps the child with the
 * fingerprint of its desired object (annotation `kubeloop.dev/applied`, see {@link appliedFrom});
 * a child without it, from an earlier version or another writer, is applied once. A settled child
 * costs no request: neither read nor written. What the desired object stops setting (an env entry,
 * a label, `hostNetwork`) is removed: before applying a changed desired object, the claims of the
 * operator's own writes other than applies (its create, an `Update`) join its `Apply` entry, in
 * one JSON patch of `managedFields` (once in a child's life, as client-go's `csaupgrade`), so that
 * the apply prunes the fields it no longer sets. Reports
 * drift — a Warning event naming who changed it and `kubeloop_drift_repairs_total{kind,manager}` —
 * when someone else made the difference or deleted it. An exclusive child (the default) also loses
 * what other writers added, in one JSON patch that also drops their claims on its content: a child
 * a previous operator created or updated becomes this controller's, and then settles. An object of
 * the child's name this owner does not control is left untouched: {@link AlreadyOwnedError} when
 * another object controls it, {@link ChildConflictError} when none does (unless `adopt`). A child
 * the apiserver refuses as invalid throws {@link InvalidChildError}, which the controller treats as
 * terminal until something changes; so does an exclusive child whose foreign fields cannot be
 * removed (a Job's immutable pod template: delete the Job, or let them stay with `exclusive:
 * false` or a co-writer rule). Does nothing while the owner is being deleted.
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
  if (ctx.childLabels) desired.metadata.labels = { ...desired.metadata.labels, ...ctx.childLabels(owner) };
  warnUnlessOwned(ctx.owned, type, () => ctx.log);
  const informer = childInformer(ctx.cache, ctx.owned, type, desired);
  const key = objectKey(
    type.namespaced ? desired.metadata.namespace : undefined,
    desired.metadata.name ?? "",
  );
  const fingerprint = fingerprintOf(desired);
  const written = stamped(desired, fingerprint);
  // `matches` only ever sees this `desired`, so widening its parameter from D is safe.
  const options = opts as EnsureChildOptions<C>;
  const child: Child<C> = { ctx, owner, type, desired, fingerprint, written, opts: options, informer, key };
  const cached = informer.store.get(key);
  if (!cached) return create(child);
  // The cache is behind a write of this controller's own: the event of that write brings a reconcile.
  if (isReplaced(informer, key, cached)) return "unchanged";
  return converge(child, cached, () => read(child));
}

/** One {@link ensureChild} call: what it converges, and where. */
interface Child<C extends KubeObject> {
  readonly ctx: ChildContext;
  readonly owner: KubeObject;
  readonly type: ResourceType<C>;
  readonly desired: ApplyObject<C>;
  /** The fingerprint of `desired`, and `desired` stamped with it: what is written. */
  readonly fingerprint: string;
  readonly written: ApplyObject<C>;
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
  const { ctx, owner, type, desired, written, informer, key } = child;
  try {
    // The apiserver judges whether the apply configuration is a whole object (InvalidChildError if not).
    await ctx.client.create(type, written as C);
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
 * owner controls it (or may adopt it), applies `desired` when it changed since the child was
 * written or the child differs from it, and removes what others added. `live` reads the object
 * with its full field sets; after an apply, its answer has them.
 */
async function converge<C extends KubeObject>(
  child: Child<C>,
  actual: C,
  live: () => Promise<C>,
): Promise<EnsureResult> {
  const { ctx, owner, desired, opts } = child;
  const ours = claim(child, actual);
  const drifted = !(opts.matches ?? defaultMatches)(desired, actual);
  const changed = appliedFingerprint(actual) !== child.fingerprint;
  // A custom `matches` judges alone; by default, a desired object changed since the last write differs.
  if (ours && !drifted && (opts.matches || !changed)) return settle(child, actual, live);
  const own = ctx.client.fieldManager;
  const culprit = ours && drifted ? await writerOfChange(own, desired, actual, live) : undefined;
  // Only a changed desired object can have dropped fields, which the operator's own claims would keep.
  const merged = changed ? await mergeOwnClaims(child, actual, live, () => read(child)) : undefined;
  const applied = await applyTo(child, actual);
  const taken = await takeOverContent(
    child,
    applied,
    async () => applied,
    () => read(child),
  );
  const versions = [merged, applied.metadata.resourceVersion, taken?.resourceVersion];
  rememberWrites(child.informer, child.key, versions);
  const by = culprit ?? taken?.removedBy;
  if (ours && by) reportDrift(ctx, owner, actual, "modified", by);
  return "updated";
}

/** A child as desired: written only when it is exclusive and others added to it. */
async function settle<C extends KubeObject>(
  child: Child<C>,
  actual: C,
  live: () => Promise<C>,
): Promise<EnsureResult> {
  const taken = await takeOverContent(child, actual, live, () => read(child));
  if (taken?.removedBy) reportDrift(child.ctx, child.owner, actual, "modified", taken.removedBy);
  return taken ? "updated" : "unchanged";
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
 * Applies `desired` (stamped with its fingerprint) to the object `actual` is and no other: its uid
 * goes along as a precondition, so an object deleted or replaced since it was read fails the apply
 * instead of being taken over.
 */
async function applyTo<C extends KubeObject>(child: Child<C>, actual: C): Promise<C> {
  const { ctx, type, written } = child;
  const uid = actual.metadata.uid;
  const body = uid ? { ...written, metadata: { ...written.metadata, uid } } : written;
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
  const named = {
    kind: child.type.kind,
    name: child.desired.metadata.name ?? "",
    ownerName: child.owner.metadata.name ?? "",
  };
  if (err instanceof InvalidError) return new InvalidChildError(describe(child), err, [], named);
  if (err instanceof ServerError && err.statusCode === 500 && typedPatchRefusal.test(err.status.message)) {
    return new InvalidChildError(describe(child), new InvalidError(err.status, err.request));
  }
  return err;
}

/** How server-side apply's 500 for a body that does not fit the schema begins. */
const typedPatchRefusal = /^failed to create typed patch object\b/;

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
