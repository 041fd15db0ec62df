/**
 * Exclusive children: a child the operator fully generates holds what the operator desires and
 * nothing more, and its content is the operator's alone. Server-side apply never removes a field
 * another manager added (a `hostNetwork: true`, an extra `env` entry, an `initContainer`, or all
 * that a previous operator wrote into a child it created), so {@link takeOver} finds them in the
 * child's `managedFields` — fields of its content (everything but `metadata` and `status`) owned by
 * another manager and absent from the desired object — and {@link takeOverPatch} removes them and
 * rewrites the other managers' claims, so the same fields are not found again. Legitimate
 * co-writers are left alone ({@link defaultCoWriters}).
 */
import { isDeepStrictEqual } from "node:util";
import type { KubeObject, ManagedFieldsEntry } from "../api/index.ts";
import type { Writer } from "./drift.ts";
import { type FieldSet, sortClaims, unionFields } from "./internal/claims.ts";

/**
 * A writer whose fields in an exclusive child are legitimate and stay.
 *
 * @example
 * ```ts
 * const meshInjector: CoWriter = { manager: "istio-sidecar-injector" };
 * const anyAnnotation: CoWriter = { path: ["spec", "template", "metadata", "annotations"] };
 * ```
 */
export interface CoWriter {
  /** Its field manager, exactly; absent: any manager. */
  readonly manager?: string;
  /**
   * The field it may own, as path segments (field names; `*` matches any one segment, a list
   * element included), with everything below it. Absent: every field of `manager`.
   */
  readonly path?: readonly string[];
}

/**
 * The co-writers an exclusive child tolerates by default: the built-in controllers
 * (`kube-controller-manager`, which includes the HorizontalPodAutoscaler setting `spec.replicas`
 * through `/scale`, and `kube-scheduler`), and the pod template annotation
 * `kubectl.kubernetes.io/restartedAt` that `kubectl rollout restart` writes, whoever writes it.
 * Fields the apiserver defaulted are owned by whoever's write they came with: by this controller,
 * or by nobody, and stay either way.
 *
 * @example
 * ```ts
 * await ensureChild(ctx, app, Deployment, desired, {
 *   exclusive: { allow: [...defaultCoWriters, { manager: "istio-sidecar-injector" }] },
 * });
 * ```
 */
export const defaultCoWriters: readonly CoWriter[] = Object.freeze([
  { manager: "kube-controller-manager" },
  { manager: "kube-scheduler" },
  { path: ["spec", "template", "metadata", "annotations", "kubectl.kubernetes.io/restartedAt"] },
]);

/**
 * Options of an exclusive child (`ensureChild`'s `exclusive`).
 *
 * @example
 * ```ts
 * const exclusive: ExclusiveOptions = { allow: [...defaultCoWriters, { manager: "vpa-updater" }] };
 * await ensureChild(ctx, app, Deployment, desired, { exclusive });
 * ```
 */
export interface ExclusiveOptions {
  /** Writers whose fields stay. Default {@link defaultCoWriters}; extend it rather than replace it. */
  allow?: readonly CoWriter[];
}

/** A field another manager added: where it is in the object, and who added it. */
export interface ForeignField {
  /** JSON pointer segments, e.g. `["spec", "template", "spec", "containers", "0", "env"]`. */
  readonly pointer: readonly string[];
  /** The manager that owns it. */
  readonly writer: Writer;
}

/** Top-level fields that are not the child's content. */
const notContent = new Set(["f:metadata", "f:status", "f:apiVersion", "f:kind"]);

/**
 * What taking an exclusive child's content over changes: the fields others added that the desired
 * object lacks go, and the `managedFields` entries of other managers stop claiming the content, so
 * the operator's server-side apply is its only owner.
 */
export interface TakeOver {
  /** Fields of the content other managers own and the desired object lacks: removed. */
  readonly removed: readonly ForeignField[];
  /**
   * The child's `managedFields` rewritten: other managers' claims on the content dropped (but an
   * allowed co-writer's), and their claims on fields the desired object sets added to the
   * operator's `Apply` entry. Absent when no claim changes.
   */
  readonly managedFields?: ManagedFieldsEntry[];
}

/**
 * How to take `obj`'s content over for manager `own`, from the full `managedFields` of `obj` (as a
 * GET returns them, not the cache's summary). Fields of the content (everything but `metadata`
 * and `status`) that other managers own and `desired` lacks are removed; their claims on the rest
 * go to `own`'s `Apply` entry (created at `now` when it has none). A create (an `Update`
 * operation, unlike an apply) claims the fields the apiserver defaulted too (`dnsPolicy`,
 * `terminationMessagePath`, ...): removed, they are defaulted again, and then owned by nobody.
 * Fields of `allow`ed writers, and status-subresource entries, are left alone.
 *
 * @example
 * ```ts
 * takeOver(live, desired, "my-operator", defaultCoWriters, "2026-11-27T19:18:44Z").removed;
 * // [{ pointer: ["spec", "template", "spec", "hostNetwork"], writer: { manager: "kubectl-patch", ... } }]
 * ```
 */
export function takeOver(
  obj: KubeObject,
  desired: KubeObject,
  own: string,
  allow: readonly CoWriter[],
  now: string,
): TakeOver {
  const foreign = new Set(foreignEntries(obj, own, allow));
  const removed: ForeignField[] = [];
  let taken: FieldSet = {};
  let changed = false;
  const rewritten = (obj.metadata.managedFields ?? []).flatMap((entry) => {
    if (!foreign.has(entry)) return [entry];
    const { meta, content } = partition(entry.fieldsV1 as FieldSet);
    const sorted = sortClaims(content, obj, desired, allowedPaths(entry, allow));
    const writer = writerOf(entry);
    removed.push(...sorted.removed.map((steps) => ({ pointer: steps.map((s) => s.pointer), writer })));
    const takes = Object.keys(sorted.take).length > 0;
    changed ||= takes || sorted.removed.length > 0;
    // A field set of another version may name other fields: it is dropped, not taken.
    if (takes && entry.apiVersion === obj.apiVersion) taken = unionFields(taken, sorted.take);
    const fieldsV1 = { ...meta, ...sorted.keep };
    return Object.keys(fieldsV1).length > 0 ? [{ ...entry, fieldsV1 }] : [];
  });
  if (!changed) return { removed: [] };
  return { removed: outermost(removed), managedFields: withTaken(rewritten, taken, obj, own, now) };
}

/** True when `obj` (the cache's summary is enough) has a writer whose fields might have to go. */
export function hasForeignWriters(obj: KubeObject, own: string, allow: readonly CoWriter[]): boolean {
  return foreignEntries(obj, own, allow, false).length > 0;
}

/**
 * The JSON patch of a {@link TakeOver}, preconditioned on `resourceVersion` (the version its
 * fields were read from: a newer object fails with 409 Conflict instead of losing someone's change
 * or claim). Removals within one list run from the highest index down, so indexes stay valid. The
 * apiserver keeps the `managedFields` a write sets (a client may rewrite them, as `kubectl apply
 * --server-side` does when it migrates client-side apply's fields).
 */
export function takeOverPatch(plan: TakeOver, resourceVersion: string): object[] {
  const removals = plan.removed
    .map((f) => f.pointer)
    .sort(descending)
    .map((pointer) => ({ op: "remove", path: `/${pointer.map(pointerSegment).join("/")}` }));
  const claims = plan.managedFields
    ? [{ op: "replace", path: "/metadata/managedFields", value: plan.managedFields }]
    : [];
  return [
    { op: "replace", path: "/metadata/resourceVersion", value: resourceVersion },
    ...removals,
    ...claims,
  ];
}

/** The most recent writer among `fields` (an entry without a time counts as the most recent). */
export function latestWriter(fields: readonly ForeignField[]): Writer | undefined {
  return fields
    .map((f) => f.writer)
    .reduce<Writer | undefined>((latest, w) => (!latest || isLater(w, latest) ? w : latest), undefined);
}

function isLater(a: Writer, b: Writer): boolean {
  if (b.time === undefined) return false;
  return a.time === undefined || a.time > b.time;
}

function foreignEntries(
  obj: KubeObject,
  own: string,
  allow: readonly CoWriter[],
  withFields = true,
): ManagedFieldsEntry[] {
  const trusted = new Set(allow.filter((a) => !a.path && a.manager).map((a) => a.manager));
  return (obj.metadata.managedFields ?? []).filter(
    (e) =>
      !!e.manager &&
      e.manager !== own &&
      !trusted.has(e.manager) &&
      e.subresource !== "status" &&
      (!withFields || (typeof e.fieldsV1 === "object" && e.fieldsV1 !== null)),
  );
}

/** The paths whose fields `entry`'s manager may own. */
function allowedPaths(entry: ManagedFieldsEntry, allow: readonly CoWriter[]): (readonly string[])[] {
  return allow.flatMap((a) => (a.path && (!a.manager || a.manager === entry.manager) ? [a.path] : []));
}

/** A field set split into its claims on the content and the rest (metadata, status). */
function partition(fields: FieldSet): { meta: FieldSet; content: FieldSet } {
  const entries = Object.entries(fields);
  return {
    meta: Object.fromEntries(entries.filter(([key]) => notContent.has(key))),
    content: Object.fromEntries(entries.filter(([key]) => !notContent.has(key))),
  };
}

/**
 * `entries` with `taken` added to `own`'s `Apply` entry, created at `now` when there is none. An
 * entry of another version names other fields: then the claims are dropped instead (the apiserver
 * keeps one entry per manager and operation).
 */
function withTaken(
  entries: ManagedFieldsEntry[],
  taken: FieldSet,
  obj: KubeObject,
  own: string,
  now: string,
): ManagedFieldsEntry[] {
  if (Object.keys(taken).length === 0) return entries;
  const ours = entries.find((e) => e.manager === own && e.operation === "Apply" && !e.subresource);
  if (!ours) {
    const apply = { manager: own, operation: "Apply" as const, apiVersion: obj.apiVersion, time: now };
    return [...entries, { ...apply, fieldsType: "FieldsV1", fieldsV1: taken }];
  }
  if (ours.apiVersion !== obj.apiVersion) return entries;
  return entries.map((e) =>
    e === ours ? { ...e, fieldsV1: unionFields(e.fieldsV1 as FieldSet, taken) } : e,
  );
}

function writerOf(entry: ManagedFieldsEntry): Writer {
  return { manager: entry.manager ?? "unknown", operation: entry.operation ?? "Update", time: entry.time };
}

/** Drops fields below another one found (its removal takes them too), and duplicates. */
function outermost(fields: ForeignField[]): ForeignField[] {
  const byDepth = [...fields].sort((a, b) => a.pointer.length - b.pointer.length);
  const kept: ForeignField[] = [];
  for (const f of byDepth)
    if (!kept.some((k) => isDeepStrictEqual(k.pointer, f.pointer.slice(0, k.pointer.length)))) kept.push(f);
  return kept;
}

/** Reverse document order, comparing list indexes as numbers. */
function descending(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const [x = "", y = ""] = [a[i], b[i]];
    if (x === y) continue;
    const numeric = /^\d+$/.test(x) && /^\d+$/.test(y);
    return numeric ? Number(y) - Number(x) : y.localeCompare(x);
  }
  return b.length - a.length;
}

/** A JSON pointer segment (RFC 6901). */
function pointerSegment(segment: string): string {
  return segment.replaceAll("~", "~0").replaceAll("/", "~1");
}
