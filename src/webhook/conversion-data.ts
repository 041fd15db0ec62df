/**
 * Lossless round trips through a version that lacks fields: converting the hub to such a spoke
 * keeps the fields the spoke cannot express in an annotation of the spoke
 * ({@link CONVERSION_DATA_ANNOTATION}), and converting the spoke back restores them from it, as
 * Cluster API's `cluster.x-k8s.io/conversion-data` does. A `conversion` declaration does this for
 * the fields a spoke `lacks`; these helpers are for converters written by hand.
 */
import type { KubeObject } from "../api/index.ts";
import { ConversionError } from "./errors.ts";

/** The annotation of a spoke that holds the hub's fields the spoke lacks, as JSON: `{"spec.tls": {...}}`. */
export const CONVERSION_DATA_ANNOTATION = "kubeloop.dev/conversion-data";

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
  const { [CONVERSION_DATA_ANNOTATION]: _dropped, ...rest } = obj.metadata.annotations ?? {};
  return rest;
}

/**
 * `spoke` with the values `hub` has at `fields` (dotted paths such as `spec.tls`) kept in its
 * {@link CONVERSION_DATA_ANNOTATION}; without the annotation when the hub has none of them.
 *
 * @example
 * ```ts
 * fromHub: (hub) => stashFields(toV1alpha1(hub), hub, ["spec.tls"]),
 * ```
 */
export function stashFields<S extends KubeObject>(spoke: S, hub: KubeObject, fields: readonly string[]): S {
  const data = Object.fromEntries(
    fields.map((field) => [field, valueAt(hub, field)]).filter(([, value]) => value !== undefined),
  );
  const annotations = annotationsWithout(spoke);
  if (Object.keys(data).length > 0) annotations[CONVERSION_DATA_ANNOTATION] = JSON.stringify(data);
  return withAnnotations(spoke, annotations);
}

function stashOf(spoke: KubeObject): Tree {
  const text = spoke.metadata.annotations?.[CONVERSION_DATA_ANNOTATION];
  if (text === undefined) return {};
  try {
    return JSON.parse(text) as Tree;
  } catch (err) {
    throw new ConversionError(
      `${spoke.kind} ${spoke.metadata.name}: annotation ${CONVERSION_DATA_ANNOTATION} is not JSON; ` +
        "remove it (it is written by conversion, never by hand)",
      { cause: err },
    );
  }
}

/**
 * `hub` with the values `spoke`'s {@link CONVERSION_DATA_ANNOTATION} kept for `fields` put back,
 * and without that annotation.
 *
 * @example
 * ```ts
 * toHub: (spoke) => restoreFields(toV1(spoke), spoke, ["spec.tls"]),
 * ```
 */
export function restoreFields<H extends KubeObject>(hub: H, spoke: KubeObject, fields: readonly string[]): H {
  const stash = stashOf(spoke);
  const restored = withAnnotations(structuredClone(hub), annotationsWithout(hub));
  for (const field of fields) {
    if (field in stash) setAt(restored as unknown as Tree, field, stash[field]);
  }
  return restored;
}
