/**
 * What a child was last written from. Comparing the desired object with the live child field by
 * field cannot see a field the desired object stopped setting (an env entry removed, a label no
 * longer wanted): the live child still has it, and every field the desired object sets matches. So
 * each child carries, in the annotation {@link APPLIED_ANNOTATION}, a short hash of the desired
 * object it was created or applied from, as kubectl keeps `last-applied-configuration` (here only
 * its hash, 16 hex digits). A different (or missing) hash means the desired object changed since:
 * the child is applied. It costs nothing on a settled child: the cache has the annotation.
 *
 * Chosen over reading the operator's own `Apply` entry: the cache keeps no field sets (they are a
 * third of an object), and the field set of a desired object needs the kind's list keys.
 */
import { createHash } from "node:crypto";
import type { KubeObject } from "../../api/index.ts";

/** The annotation holding the fingerprint of the desired object a child was last written from. */
export const APPLIED_ANNOTATION = "kubeloop.dev/applied";

/**
 * The fingerprint of `desired`: the start of the SHA-256 of its JSON with object keys sorted, so
 * the same object built in another order has the same one. Left out: its own annotation, and what
 * names the child rather than describes it (name, namespace, controller reference: the same for
 * every write of one child, and another owner's child is never written), so that the same content
 * has the same fingerprint in any namespace and under an owner created again.
 */
export function fingerprintOf(desired: KubeObject): string {
  const {
    name: _name,
    namespace: _namespace,
    annotations = {},
    ownerReferences = [],
    ...rest
  } = desired.metadata;
  const { [APPLIED_ANNOTATION]: _, ...others } = annotations;
  const metadata = {
    ...rest,
    annotations: others,
    ownerReferences: ownerReferences.filter((r) => !r.controller),
  };
  return createHash("sha256")
    .update(JSON.stringify({ ...desired, metadata }, sortedKeys))
    .digest("hex")
    .slice(0, 16);
}

/** The fingerprint `obj` carries: of the desired object it was last written from. */
export function appliedFingerprint(obj: KubeObject): string | undefined {
  return obj.metadata.annotations?.[APPLIED_ANNOTATION];
}

/** `desired` carrying `fingerprint`, to be written. */
export function stamped<T extends KubeObject>(desired: T, fingerprint: string): T {
  const annotations = { ...desired.metadata.annotations, [APPLIED_ANNOTATION]: fingerprint };
  return { ...desired, metadata: { ...desired.metadata, annotations } };
}

/** A `JSON.stringify` replacer writing each object's keys in order. */
function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
