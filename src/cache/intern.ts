/**
 * String interning for cached objects. `JSON.parse` gives every object its own copy of every
 * string, yet most values repeat across objects of a kind (labels, images, container names,
 * mount paths, node names, owner kinds). Replacing them with one shared copy cuts a cached
 * Pod-like object's heap by about a fifth. The pool is bounded (oldest entries leave first), so
 * values that never repeat cannot make it grow without limit.
 */
import type { KubeObject } from "../api/index.ts";
import type { Transform } from "./reflector.ts";

/** Fields whose values are (nearly) unique per object: interning them would only churn the pool. */
const uniqueValued = new Set([
  "uid",
  "resourceVersion",
  "creationTimestamp",
  "deletionTimestamp",
  "time",
  "lastTransitionTime",
  "lastProbeTime",
  "lastHeartbeatTime",
  "startTime",
  "startedAt",
  "finishedAt",
  "restartedAt",
  "containerID",
  "podIP",
  "ip",
]);

/** Strings longer than this are rarely repeated verbatim and are left alone. */
const maxLength = 256;

/**
 * True when {@link internStrings} shares `value`, found in `field` of an object that is itself in
 * `parent`: short enough, and not of a field whose values are unique per object.
 */
export function sharedByInterning(
  value: string,
  field: string | undefined,
  parent: string | undefined,
): boolean {
  const unique = uniqueValued.has(field ?? "") || (field === "name" && parent === "metadata");
  return value.length <= maxLength && !unique;
}

/**
 * A transform that replaces, in place, the repeated string values of each object with one shared
 * copy from a pool of at most `maxEntries` strings. It mutates the object it is given, so use it
 * only on objects nobody else holds (freshly parsed watch objects, as the informer does).
 */
export function internStrings<T extends KubeObject>(maxEntries = 16_384): Transform<T> {
  const pool = new Map<string, string>();
  const intern = (s: string): string => {
    const known = pool.get(s);
    if (known !== undefined) return known;
    if (pool.size >= maxEntries) pool.delete(pool.keys().next().value as string);
    pool.set(s, s);
    return s;
  };
  const visit = (value: unknown, field: string | undefined, parent: string | undefined): unknown => {
    if (typeof value === "string") return sharedByInterning(value, field, parent) ? intern(value) : value;
    if (value !== null && typeof value === "object") walk(value as Record<string, unknown>, field);
    return value;
  };
  const walk = (node: Record<string, unknown> | unknown[], parent: string | undefined): void => {
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) node[i] = visit(node[i], parent, parent);
      return;
    }
    for (const key in node) node[key] = visit(node[key], key, parent);
  };
  return (obj) => {
    walk(obj as unknown as Record<string, unknown>, undefined);
    return obj;
  };
}
