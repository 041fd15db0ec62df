/**
 * A manager's claims on an exclusive child's content, sorted. A claim is a key of the field-set
 * trie of its `managedFields` entry (`fieldsV1`: `f:<field>`, `k:<list element key>`, `v:<set
 * value>`, `i:<index>`, and `.` for the node itself). Against the live object and the desired one,
 * each claim is either dropped with its field (the desired object lacks it: the field is removed),
 * taken (the desired object sets it: the operator owns it from now on), or kept (an allowed
 * co-writer's path, or a field the live object does not have).
 */
import { isDeepStrictEqual } from "node:util";

/** A `fieldsV1` trie. */
export type FieldSet = Record<string, unknown>;

/** One step into an object: its name for a co-writer's path, its JSON pointer segment. */
export interface Step {
  readonly name: string;
  readonly pointer: string;
}

/** One manager's content claims, sorted by {@link sortClaims}. */
export interface SortedClaims {
  /** Claims that stay with the manager. */
  readonly keep: FieldSet;
  /** Claims on fields the desired object sets: the operator's from now on. */
  readonly take: FieldSet;
  /** The fields the desired object lacks, to be removed (the highest of each, not each leaf below). */
  readonly removed: Step[][];
}

/** Paths (names, `*` for any one) whose claims stay, with everything below them. */
type Allowed = readonly (readonly string[])[];

/** Sorts the claims `fields` makes below `at` in `live` (whose desired counterpart is `want`). */
export function sortClaims(
  fields: FieldSet,
  live: unknown,
  want: unknown,
  allowed: Allowed,
  at: Step[] = [],
): SortedClaims {
  const sorted: SortedClaims = { keep: {}, take: {}, removed: [] };
  for (const [key, sub] of Object.entries(fields)) sortClaim(sorted, key, sub, { live, want, allowed, at });
  return sorted;
}

/** Sorts the claim `key` (with the claims below it, `sub`) into `sorted`. */
function sortClaim(
  sorted: SortedClaims,
  key: string,
  sub: unknown,
  where: { live: unknown; want: unknown; allowed: Allowed; at: Step[] },
): void {
  const { live, want, allowed, at } = where;
  // The node itself: the operator's when the desired object has the node.
  if (key === ".") {
    (want === undefined ? sorted.keep : sorted.take)[key] = {};
    return;
  }
  const child = locate(key, live, want);
  // A field the live object lacks, or a list key that cannot be read: left as it is.
  if (!child) {
    sorted.keep[key] = sub;
    return;
  }
  const path = [...at, child.step];
  const names = path.map((s) => s.name);
  if (allowed.some((p) => startsWith(names, p))) sorted.keep[key] = sub;
  else if (child.want === undefined && !allowed.some((p) => startsWith(p, names))) sorted.removed.push(path);
  else if (!isMap(sub) || Object.keys(sub).length === 0)
    (child.want === undefined ? sorted.keep : sorted.take)[key] = {};
  else {
    const inner = sortClaims(sub, child.live, child.want, allowed, path);
    if (Object.keys(inner.keep).length > 0) sorted.keep[key] = inner.keep;
    if (Object.keys(inner.take).length > 0) sorted.take[key] = inner.take;
    sorted.removed.push(...inner.removed);
  }
}

/** The union of two field sets. */
export function unionFields(a: FieldSet, b: FieldSet): FieldSet {
  const union: FieldSet = { ...a };
  for (const [key, sub] of Object.entries(b)) {
    const mine = union[key];
    union[key] = isMap(mine) && isMap(sub) ? unionFields(mine, sub) : isMap(sub) ? sub : (mine ?? sub);
  }
  return union;
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
  if (!isMap(live) || !Object.hasOwn(live, name)) return undefined;
  return {
    step: { name, pointer: name },
    live: live[name],
    want: isMap(want) && Object.hasOwn(want, name) ? want[name] : undefined,
  };
}

/**
 * How a list element key (`k:{"name":"nginx"}`, `v:"a"`, `i:2`) finds its element. A desired
 * element matches a key on the key fields it sets (one leaving out a defaulted key field, such as
 * a port's `protocol`, still matches); a live element on all of them. A key that is not JSON
 * matches nothing.
 */
function elementMatcher(kind: string, rest: string, live: unknown[]) {
  if (kind === "i:") return (_item: unknown, i: number) => i === Number(rest) && i < live.length;
  const value = parseKey(rest);
  if (kind === "v:" && value.ok) return (item: unknown) => isDeepStrictEqual(item, value.value);
  if (kind !== "k:" || !value.ok || !isMap(value.value)) return undefined;
  const keys = Object.entries(value.value);
  return (item: unknown, _i: number, strict: boolean) =>
    isMap(item) &&
    keys.every(([k, v]) => isDeepStrictEqual(item[k], v) || (!strict && item[k] === undefined));
}

function parseKey(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** True when `path` begins with `prefix` (`*` in either matches any segment). */
function startsWith(path: readonly string[], prefix: readonly string[]): boolean {
  return (
    prefix.length <= path.length && prefix.every((p, i) => p === "*" || path[i] === "*" || p === path[i])
  );
}
