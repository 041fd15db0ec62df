/**
 * Lossless round trips through a version that lacks fields: converting the hub to such a spoke
 * keeps the fields the spoke cannot express in an annotation of the spoke
 * ({@link CONVERSION_DATA_ANNOTATION}), and converting the spoke back restores them from it, as
 * Cluster API's `cluster.x-k8s.io/conversion-data` does. A `conversion` declaration does this for
 * the fields a spoke `lacks`; these helpers are for converters written by hand.
 *
 * A spoke may show part of such a field (v1alpha1's `host` is the first of v1's `hosts`), so a
 * client may edit it through the spoke. The field is restored only when the spoke still shows it
 * as it did: what the spoke showed of it (the field in the spoke converted back, before any
 * restoring) travels beside it ({@link CONVERSION_SHOWN_ANNOTATION}), and when the spoke now shows
 * something else, the edit wins and the stashed value is dropped, as Cluster API's hand-written
 * restores do for a value the old version changed.
 */
import { isDeepStrictEqual } from "node:util";
import type { KubeObject } from "../api/index.ts";
import { ConversionError } from "./errors.ts";

/** The annotation of a spoke that holds the hub's fields the spoke lacks, as JSON: `{"spec.tls": {...}}`. */
export const CONVERSION_DATA_ANNOTATION = "kubeloop.dev/conversion-data";

/**
 * The annotation of a spoke that holds, for each stashed field the spoke shows part of, that field
 * as the spoke converts back, as JSON: `{"spec.hosts": ["a.example"]}` (a field the spoke shows
 * nothing of is not listed). A stashed field is restored only while the spoke still converts to it.
 */
export const CONVERSION_SHOWN_ANNOTATION = "kubeloop.dev/conversion-shown";

type Tree = Record<string, unknown>;

function valueAt(obj: unknown, path: string): unknown {
  return path.split(".").reduce<unknown>((at, key) => (at as Tree | undefined)?.[key], obj);
}

function setAt(obj: Tree, path: string, value: unknown): void {
  const keys = path.split(".");
  const last = keys.pop() as string;
  let at = obj;
  for (const key of keys) {
    if (typeof at[key] !== "object" || at[key] === null) at[key] = {};
    at = at[key] as Tree;
  }
  at[last] = value;
}

/** A copy of `obj` with `annotations` (without the key when empty). */
function withAnnotations<T extends KubeObject>(obj: T, annotations: Record<string, string>): T {
  const { annotations: _dropped, ...metadata } = obj.metadata;
  const kept = Object.keys(annotations).length > 0 ? { annotations } : {};
  return { ...obj, metadata: { ...metadata, ...kept } };
}

function annotationsWithout(obj: KubeObject): Record<string, string> {
  const {
    [CONVERSION_DATA_ANNOTATION]: _data,
    [CONVERSION_SHOWN_ANNOTATION]: _shown,
    ...rest
  } = obj.metadata.annotations ?? {};
  return rest;
}

/** The values `obj` has at `fields`, by field, leaving out those it has none at. */
function valuesAt(obj: KubeObject, fields: readonly string[]): Tree {
  const entries = fields.map((field) => [field, valueAt(obj, field)] as const);
  return Object.fromEntries(entries.filter(([, value]) => value !== undefined));
}

/**
 * `spoke` with the values `hub` has at `fields` (dotted paths such as `spec.tls`) kept in its
 * {@link CONVERSION_DATA_ANNOTATION}, and, in its {@link CONVERSION_SHOWN_ANNOTATION}, what
 * `shown` (the spoke converted back to the hub, nothing restored) has at those of them it shows
 * part of; without the annotations when there is nothing to keep.
 *
 * @example
 * ```ts
 * fromHub: (hub) => {
 *   const spoke = toV1alpha1(hub);
 *   return stashFields(spoke, hub, ["spec.hosts"], toV1(spoke));
 * },
 * ```
 */
export function stashFields<S extends KubeObject>(
  spoke: S,
  hub: KubeObject,
  fields: readonly string[],
  shown: KubeObject,
): S {
  const data = valuesAt(hub, fields);
  const seen = valuesAt(shown, Object.keys(data));
  const annotations = annotationsWithout(spoke);
  if (Object.keys(data).length > 0) annotations[CONVERSION_DATA_ANNOTATION] = JSON.stringify(data);
  if (Object.keys(seen).length > 0) annotations[CONVERSION_SHOWN_ANNOTATION] = JSON.stringify(seen);
  return withAnnotations(spoke, annotations);
}

/** The JSON object in `spoke`'s annotation `key`, or `{}` without it. */
function annotationJson(spoke: KubeObject, key: string): Tree {
  const text = spoke.metadata.annotations?.[key];
  if (text === undefined) return {};
  try {
    return JSON.parse(text) as Tree;
  } catch (err) {
    throw new ConversionError(
      `${spoke.kind} ${spoke.metadata.name}: annotation ${key} is not JSON; ` +
        "remove it (it is written by conversion, never by hand)",
      { cause: err },
    );
  }
}

/** Whether two values are the same JSON (key order aside; a member set to `undefined` is absent). */
function sameJson(a: unknown, b: unknown): boolean {
  const json = (value: unknown) => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));
  return isDeepStrictEqual(json(a), json(b));
}

/**
 * `hub` (the spoke converted to the hub) with the values `spoke`'s
 * {@link CONVERSION_DATA_ANNOTATION} kept for `fields` put back, each only where `hub` has at it
 * what the spoke showed when it was made ({@link CONVERSION_SHOWN_ANNOTATION}): a field the spoke
 * shows part of and was changed through keeps the change. Without both annotations.
 *
 * @example
 * ```ts
 * toHub: (spoke: MyProxyV1alpha1) => restoreFields(toV1(spoke), spoke, ["spec.hosts"]),
 * ```
 */
export function restoreFields<H extends KubeObject>(hub: H, spoke: KubeObject, fields: readonly string[]): H {
  const stash = annotationJson(spoke, CONVERSION_DATA_ANNOTATION);
  const shown = annotationJson(spoke, CONVERSION_SHOWN_ANNOTATION);
  const restored = withAnnotations(structuredClone(hub), annotationsWithout(hub));
  for (const field of fields) {
    const unchanged = sameJson(valueAt(hub, field), Object.hasOwn(shown, field) ? shown[field] : undefined);
    if (Object.hasOwn(stash, field) && unchanged) setAt(restored as unknown as Tree, field, stash[field]);
  }
  return restored;
}
