/**
 * String and record interning for cached objects. `JSON.parse` gives every object its own copy of
 * every string and of every nested object, yet many repeat across objects of a kind: strings
 * (labels, images, container names, mount paths, node names, owner kinds and uids), and the
 * metadata's records — the labels, annotations, `ownerReferences` and finalizers that the Pods of
 * one ReplicaSet, or the objects of one release, have alike. Replacing each with one shared copy
 * cuts a cached Pod-like object's heap by about a fifth, and a metadata-only one's by a third.
 * The pools are bounded (oldest entries leave first; for records, the least recently used), so
 * values that never repeat cannot make them grow without limit.
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

/** Strings and records (as JSON) longer than this are rarely repeated verbatim and are left alone. */
const maxLength = 256;

/** The metadata fields whose records are shared whole (`metadata.labels`, and so on). */
const recordFields = new Set(["labels", "annotations", "ownerReferences", "finalizers"]);

/**
 * True when {@link internStrings} shares `value`, found in `field` of an object that is itself in
 * `parent`: short enough, and not of a field whose values are unique per object — an owner's
 * `uid` is not: it repeats in every object that owner has.
 */
export function sharedByInterning(
  value: string,
  field: string | undefined,
  parent: string | undefined,
): boolean {
  const unique =
    (uniqueValued.has(field ?? "") && parent !== "ownerReferences") ||
    (field === "name" && parent === "metadata");
  return value.length <= maxLength && !unique;
}

/** True for a metadata record, or an item of one: what {@link internStrings} shares and freezes. */
function isRecord(field: string | undefined, parent: string | undefined): boolean {
  return recordFields.has(field ?? "") && (parent === "metadata" || parent === field);
}

/**
 * The length of `value`'s JSON, about, when the transform shares the record `value` (found in
 * `field` of an object in `parent`) whole with its equals; -1 when it does not: when it is not a
 * plain object or an array whose every value is a shared string, a finite number, a boolean,
 * `null` or a shared record itself, or its JSON is long.
 */
function recordLength(value: object, field: string | undefined, parent: string | undefined): number {
  if (Array.isArray(value)) {
    let length = 1 + value.length;
    for (const item of value) {
      const itemLength = sharedLength(item, field, parent);
      length += itemLength;
      if (itemLength < 0 || length > maxLength) return -1;
    }
    return length;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return -1;
  let length = 1;
  for (const key in value) {
    const valueLength = sharedLength((value as Record<string, unknown>)[key], key, field);
    length += key.length + 4 + valueLength;
    if (valueLength < 0 || length > maxLength) return -1;
  }
  return length + 1;
}

/** The JSON length of a value a shared record may hold, or -1 (its own records are shared with it). */
function sharedLength(value: unknown, field: string | undefined, parent: string | undefined): number {
  switch (typeof value) {
    case "string":
      return sharedByInterning(value, field, parent) ? value.length + 2 : -1;
    case "number":
      return Number.isFinite(value) && !Object.is(value, -0) ? String(value).length : -1;
    case "boolean":
      return 5;
    case "object":
      return value === null ? 4 : recordLength(value, field, parent);
    default:
      return -1; // undefined, a function: JSON would not tell them apart from absence
  }
}

/**
 * A map of at most `maxEntries` values by key: the first value put under a key is the one kept.
 * The oldest entry leaves first; with `refresh`, a hit makes an entry newest, so that values in
 * use stay while one-offs pass (worth its two map operations for records, not for strings).
 */
function boundedPool<V>(maxEntries: number, refresh: boolean): (key: string, value: V) => V {
  const entries = new Map<string, V>();
  return (key, value) => {
    const known = entries.get(key);
    if (known !== undefined && refresh) entries.delete(key);
    else if (known !== undefined) return known;
    else if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
    entries.set(key, known ?? value);
    return known ?? value;
  };
}

/**
 * A transform that replaces, in place, the repeated string values of each object with one shared
 * copy from a pool of at most `maxEntries` strings, and its metadata's repeated records (labels,
 * annotations, `ownerReferences`, finalizers) with one shared copy from a pool of an eighth as
 * many. It mutates the object it is given, so use it only on objects nobody else holds (freshly
 * parsed watch objects, as the informer does). Objects it returns may share records with each
 * other, so those records are frozen, shared or not: changing a cached object's labels in place
 * (which would change its siblings' too) throws a TypeError; copy the object, or its record, first.
 */
export function internStrings<T extends KubeObject>(maxEntries = 16_384): Transform<T> {
  const strings = boundedPool<string>(maxEntries, false);
  const records = boundedPool<object>(Math.ceil(maxEntries / 8), true);
  const visit = (value: unknown, field: string | undefined, parent: string | undefined): unknown => {
    if (typeof value === "string")
      return sharedByInterning(value, field, parent) ? strings(value, value) : value;
    if (value === null || typeof value !== "object") return value;
    walk(value as Record<string, unknown>, field);
    if (!isRecord(field, parent)) return value;
    Object.freeze(value);
    return recordLength(value, field, parent) < 0 ? value : records(JSON.stringify(value), value);
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
