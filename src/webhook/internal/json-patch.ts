/**
 * The RFC 6902 JSON patch that turns one JSON value into another: what a defaulting webhook
 * answers. Objects are compared key by key (`add`, `remove`, `replace` per member); arrays and
 * values of different types are replaced whole, which RFC 6902 allows and the apiserver applies
 * alike (a list's elements have no identity a patch could rely on).
 *
 * A member is only ever an object's own: a key named like an `Object.prototype` member
 * (`constructor`, `toString`, `__proto__`, which `JSON.parse` makes an own member) is compared,
 * added and removed like any other, never confused with what the prototype inherits.
 */

/** A JSON value, as `JSON.parse` returns it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** One operation of an RFC 6902 JSON patch. */
export type PatchOperation =
  | { op: "add" | "replace"; path: string; value: Json }
  | { op: "remove"; path: string };

/** An RFC 6901 pointer token: `~` becomes `~0`, `/` becomes `~1` (in that order). */
export function escapePointerToken(token: string): string {
  return token.replaceAll("~", "~0").replaceAll("/", "~1");
}

function isObject(value: Json): value is { [key: string]: Json } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The own member `key` of `obj`, if it has one (never an inherited one such as `constructor`). */
function own(obj: { [key: string]: Json }, key: string): Json | undefined {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

function equal(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => equal(x, b[i]!));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && equal(a[k]!, b[k]!))
    );
  }
  return false;
}

function diffMembers(
  from: { [key: string]: Json },
  to: { [key: string]: Json },
  path: string,
): PatchOperation[] {
  const ops: PatchOperation[] = [];
  for (const key of Object.keys(from)) {
    if (!Object.hasOwn(to, key)) ops.push({ op: "remove", path: `${path}/${escapePointerToken(key)}` });
  }
  for (const [key, value] of Object.entries(to)) {
    const at = `${path}/${escapePointerToken(key)}`;
    const before = own(from, key);
    if (before === undefined) ops.push({ op: "add", path: at, value });
    else ops.push(...diffAt(before, value, at));
  }
  return ops;
}

function diffAt(from: Json, to: Json, path: string): PatchOperation[] {
  if (equal(from, to)) return [];
  if (isObject(from) && isObject(to)) return diffMembers(from, to, path);
  return [{ op: "replace", path, value: to }];
}

/**
 * The operations that turn `from` into `to`: none when they are equal. Both must be JSON values
 * (run other values through `JSON.parse(JSON.stringify(...))` first).
 *
 * @example
 * ```ts
 * jsonPatch({ spec: { a: 1 } }, { spec: { a: 2, "b/c": true } });
 * // [{ op: "replace", path: "/spec/a", value: 2 }, { op: "add", path: "/spec/b~1c", value: true }]
 * ```
 */
export function jsonPatch(from: Json, to: Json): PatchOperation[] {
  return diffAt(from, to, "");
}
