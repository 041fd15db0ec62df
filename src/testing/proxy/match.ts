/**
 * Which requests a fault rule applies to: a {@link Match} is a conjunction of optional filters on
 * the request, plus how often the rule fires (`times`, `probability`). The coin flips use a seeded
 * generator, so a test with the same seed and the same request order sees the same faults.
 */
import type { RequestInfo, Verb } from "./request-info.ts";

/** One value or several; a filter matches when the request's value is any of them. */
export type OneOrMany<T> = T | readonly T[];

/** Selects requests. Every filter given must match; an empty match selects every request. */
export interface Match {
  /** HTTP method(s), e.g. `"PATCH"`. Case-insensitive. */
  method?: OneOrMany<string>;
  /** Kubernetes verb(s), derived from the method, the path and the `watch` query parameter. */
  verb?: OneOrMany<Verb>;
  /** Resource plural(s) such as `"configmaps"`, or `"pods/status"` for a subresource. The API group is not compared. */
  resource?: OneOrMany<string>;
  /** Namespace of the request. */
  namespace?: string;
  /** Object name of the request. */
  name?: string;
  /** A path prefix (`"/api/v1/namespaces/demo"`) or a pattern tested against the path; the query string is not part of it. */
  path?: string | RegExp;
  /** Apply only to the first `times` matching requests (watch streams count once each), then stop. */
  times?: number;
  /** Apply to each matching request with this probability (0..1), drawn from the proxy's seeded generator. */
  probability?: number;
}

const asList = <T>(value: OneOrMany<T>): readonly T[] => (Array.isArray(value) ? value : [value as T]);

/** True when every filter of `match` accepts the request (ignores `times` and `probability`). */
export function matchesRequest(match: Match, info: RequestInfo): boolean {
  if (match.method !== undefined && !asList(match.method).some((m) => m.toUpperCase() === info.method)) {
    return false;
  }
  if (match.verb !== undefined && !asList(match.verb).includes(info.verb)) return false;
  if (match.resource !== undefined && !asList(match.resource).some((r) => resourceMatches(r, info))) {
    return false;
  }
  if (match.namespace !== undefined && match.namespace !== info.namespace) return false;
  if (match.name !== undefined && match.name !== info.name) return false;
  return match.path === undefined || pathMatches(match.path, info.path);
}

function resourceMatches(wanted: string, info: RequestInfo): boolean {
  const [resource, subresource] = wanted.split("/", 2);
  return resource === info.resource && (subresource === undefined || subresource === info.subresource);
}

function pathMatches(pattern: string | RegExp, path: string): boolean {
  if (typeof pattern === "string") return path.startsWith(pattern);
  pattern.lastIndex = 0;
  return pattern.test(path);
}

/** A deterministic generator of numbers in [0, 1) (mulberry32). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
