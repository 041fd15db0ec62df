/**
 * Comparing Kubernetes objects as JSON: key order ignored, `lastTransitionTime` left out of
 * status comparisons, differences named by path.
 */

/** JSON with object keys sorted, so equal values give equal strings. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

/** True when `a` and `b` are the same JSON (key order ignored; `undefined` members dropped). */
export function sameJson(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

/** A copy of `value` without any member named one of `names`, at any depth. */
export function withoutMembers(value: unknown, names: readonly string[]): unknown {
  if (Array.isArray(value)) return value.map((v) => withoutMembers(v, names));
  if (!value || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !names.includes(key))
      .map(([key, v]) => [key, withoutMembers(v, names)]),
  );
}

/** A copy of `value` without any member named `lastTransitionTime`, at any depth. */
export function withoutTransitionTimes(value: unknown): unknown {
  return withoutMembers(value, ["lastTransitionTime"]);
}

/** A copy of `value` with every occurrence of each key of `replacements` in its strings replaced. */
export function replaceInStrings(value: unknown, replacements: ReadonlyMap<string, string>): unknown {
  if (replacements.size === 0) return value;
  if (typeof value === "string") {
    let out = value;
    for (const [from, to] of replacements) if (from) out = out.split(from).join(to);
    return out;
  }
  if (Array.isArray(value)) return value.map((v) => replaceInStrings(v, replacements));
  if (!value || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaceInStrings(v, replacements)]));
}

const show = (value: unknown) => (value === undefined ? "(absent)" : JSON.stringify(value));

/** Where `seen` differs from `expected`: up to `limit` lines `path: expected X, seen Y`. */
export function differences(expected: unknown, seen: unknown, limit = 6, path = ""): string[] {
  if (sameJson(expected, seen)) return [];
  const bothObjects =
    expected && seen && typeof expected === "object" && typeof seen === "object" && !Array.isArray(expected);
  if (bothObjects && !Array.isArray(seen)) {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(seen)])].sort();
    const lines: string[] = [];
    for (const key of keys) {
      const sub = differences(
        (expected as Record<string, unknown>)[key],
        (seen as Record<string, unknown>)[key],
        limit - lines.length,
        path ? `${path}.${key}` : key,
      );
      lines.push(...sub);
      if (lines.length >= limit) break;
    }
    return lines;
  }
  if (Array.isArray(expected) && Array.isArray(seen) && expected.length === seen.length) {
    const lines: string[] = [];
    for (let i = 0; i < expected.length && lines.length < limit; i++) {
      lines.push(...differences(expected[i], seen[i], limit - lines.length, `${path}[${i}]`));
    }
    return lines;
  }
  return [`${path || "(whole value)"}: expected ${show(expected)}, seen ${show(seen)}`];
}
