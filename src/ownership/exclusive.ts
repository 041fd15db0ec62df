/**
 * Exclusive children: a child the operator fully generates holds what the operator desires and
 * nothing more. Server-side apply never removes a field another manager added (a `hostNetwork:
 * true`, an extra `env` entry, an `initContainer`), so {@link foreignAdditions} finds them in the
 * child's `managedFields` — fields of its content (everything but `metadata` and `status`) owned by
 * another manager and absent from the desired object — and {@link removalPatch} removes them.
 * Legitimate co-writers are left alone ({@link defaultCoWriters}).
 */
import { isDeepStrictEqual } from "node:util";
import type { KubeObject, ManagedFieldsEntry } from "../api/index.ts";
import type { Writer } from "./drift.ts";

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

/** One step into an object: its name for {@link CoWriter.path}, its JSON pointer segment. */
interface Step {
  readonly name: string;
  readonly pointer: string;
}

type FieldSet = Record<string, unknown>;

/** Top-level fields that are not the child's content. */
const notContent = new Set(["f:metadata", "f:status", "f:apiVersion", "f:kind"]);

/**
 * The fields of `obj`'s content that managers other than `own` own and `desired` does not have,
 * from the full `managedFields` of `obj` (as a GET returns them, not the cache's summary). The
 * highest such field is reported, not each leaf below it. Fields of `allow`ed writers, and
 * status-subresource entries, are skipped.
 *
 * @example
 * ```ts
 * foreignAdditions(live, desired, "my-operator");
 * // [{ pointer: ["spec", "template", "spec", "hostNetwork"], writer: { manager: "kubectl-patch", ... } }]
 * ```
 */
export function foreignAdditions(
  obj: KubeObject,
  desired: KubeObject,
  own: string,
  allow: readonly CoWriter[] = defaultCoWriters,
): ForeignField[] {
  const found = foreignEntries(obj, own, allow).flatMap((entry) => {
    const rules = allow.filter((a) => a.path && (!a.manager || a.manager === entry.manager));
    const content = Object.entries(entry.fieldsV1 as FieldSet).filter(([key]) => !notContent.has(key));
    const writer = writerOf(entry);
    return walk(Object.fromEntries(content), obj, desired, [], rules).map((steps) => ({
      pointer: steps.map((s) => s.pointer),
      writer,
    }));
  });
  return outermost(found);
}

/** True when `obj` (the cache's summary is enough) has a writer whose fields might have to go. */
export function hasForeignWriters(obj: KubeObject, own: string, allow: readonly CoWriter[]): boolean {
  return foreignEntries(obj, own, allow, false).length > 0;
}

/**
 * The JSON patch removing `fields`, preconditioned on `resourceVersion` (the version they were
 * read from: a newer object fails with 409 Conflict instead of losing someone's change).
 * Removals within one list run from the highest index down, so indexes stay valid.
 */
export function removalPatch(fields: readonly ForeignField[], resourceVersion: string): object[] {
  const removals = [...fields]
    .map((f) => f.pointer)
    .sort(descending)
    .map((pointer) => ({ op: "remove", path: `/${pointer.map(pointerSegment).join("/")}` }));
  return [{ op: "replace", path: "/metadata/resourceVersion", value: resourceVersion }, ...removals];
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

function writerOf(entry: ManagedFieldsEntry): Writer {
  return { manager: entry.manager ?? "unknown", operation: entry.operation ?? "Update", time: entry.time };
}

/** The paths below `at` that `fields` owns, `live` has, and `want` lacks. */
function walk(
  fields: FieldSet,
  live: unknown,
  want: unknown,
  at: Step[],
  rules: readonly CoWriter[],
): Step[][] {
  return Object.entries(fields).flatMap(([key, sub]) => {
    const child = locate(key, live, want);
    if (!child) return [];
    const path = [...at, child.step];
    const names = path.map((s) => s.name);
    if (rules.some((r) => startsWith(names, r.path ?? []))) return [];
    if (child.want === undefined && !rules.some((r) => startsWith(r.path ?? [], names))) return [path];
    return walk((sub ?? {}) as FieldSet, child.live, child.want, path, rules);
  });
}

/** The value a `fieldsV1` key names in `live` and in `want`; undefined when `live` has none. */
function locate(
  key: string,
  live: unknown,
  want: unknown,
): { step: Step; live: unknown; want: unknown } | undefined {
  const kind = key.slice(0, 2);
  const rest = key.slice(2);
  if (kind === "f:") return field(rest, live, want);
  if (!Array.isArray(live)) return undefined;
  const wanted = Array.isArray(want) ? want : [];
  const match = elementMatcher(kind, rest, live);
  const index = match ? live.findIndex((item, i) => match(item, i, true)) : -1;
  if (index < 0 || !match) return undefined;
  const step = { name: key, pointer: String(index) };
  return { step, live: live[index], want: wanted.find((item, i) => match(item, i, false)) };
}

function field(name: string, live: unknown, want: unknown) {
  if (!isMap(live) || !(name in live)) return undefined;
  return { step: { name, pointer: name }, live: live[name], want: isMap(want) ? want[name] : undefined };
}

/**
 * How a list element key (`k:{"name":"nginx"}`, `v:"a"`, `i:2`) finds its element. A desired
 * element matches a key on the key fields it sets (one leaving out a defaulted key field, such as
 * a port's `protocol`, still matches); a live element on all of them.
 */
function elementMatcher(kind: string, rest: string, live: unknown[]) {
  if (kind === "i:") return (_item: unknown, i: number) => i === Number(rest) && i < live.length;
  const value: unknown = JSON.parse(rest);
  if (kind === "v:") return (item: unknown) => isDeepStrictEqual(item, value);
  if (kind !== "k:" || !isMap(value)) return undefined;
  return (item: unknown, _i: number, strict: boolean) =>
    isMap(item) &&
    Object.entries(value).every(
      ([k, v]) => isDeepStrictEqual(item[k], v) || (!strict && item[k] === undefined),
    );
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** True when `path` begins with `prefix` (`*` in `prefix` matches any segment). */
function startsWith(path: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= path.length && prefix.every((p, i) => p === "*" || p === path[i]);
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
