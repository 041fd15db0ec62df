/**
 * What two runs of the same operator on the same spec legitimately disagree on, left out of the
 * history-independence comparison by a rule about values rather than a list per operator:
 * - observations of time: a string that is an RFC 3339 timestamp (`startTime`, `completionTime`),
 *   and a member whose name says it measures time (`...Time`, `...Timestamp`, `duration`,
 *   `elapsed`, `age`): it is derived from when things happened, which no two runs share;
 * - digests: a string of 16 or more hex digits (a config hash, kubeloop's `kubeloop.dev/applied`
 *   fingerprint). A hash of content that names the namespace or a uid differs between the explored
 *   and the fresh namespace and, unlike the content itself, cannot be renamed; the content it hashes
 *   is compared on its own (renamed), so leaving the digest out hides no difference in output.
 * - generated names: a string shaped as the apiserver's `generateName` makes names (a prefix, a
 *   dash, then 5 characters of apimachinery's `util/rand` alphabet, which has no vowels), such as
 *   a Deployment's pods listed in a status: each run's pods get names of their own. The string is
 *   replaced, not dropped, so how many there are still compares; an output so named is compared
 *   by its prefix and its rank among the outputs of that prefix (see `oracles.ts`).
 * Identities (uids, namespace) are not left out but renamed (see `renames` in `oracles.ts`), so
 * a value carrying a uid still compares.
 */

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const TIME_NAME = /(Time|Timestamp|^duration|^elapsed|^age)$/;
const DIGEST = /^[0-9a-f]{16,}$/;
/** A name `generateName` made: prefix, dash, 5 of `bcdfghjklmnpqrstvwxz2456789` (apimachinery's `rand.String`). */
const GENERATED_NAME = /^[a-z0-9]([-.a-z0-9]*[a-z0-9])?-[bcdfghjklmnpqrstvwxz2456789]{5}$/;
/** What a generated name compares as. */
export const GENERATED = "<generated name>";

/**
 * `name` compared as a generated name when `generateName` made it (`signed-label-<generated name>`),
 * else `name` itself.
 */
export function comparableName(name: string): string {
  return GENERATED_NAME.test(name) ? `${name.slice(0, -5)}${GENERATED}` : name;
}

/** Whether `value`, the member `name` of an object, observes time or digests content. */
function isObservation(name: string, value: unknown): boolean {
  if (TIME_NAME.test(name)) return true;
  return typeof value === "string" && (TIMESTAMP.test(value) || DIGEST.test(value));
}

/**
 * A copy of `value` without any member, at any depth, that observes time or digests content, and
 * with every generated name as {@link GENERATED}.
 */
export function withoutObservations(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutObservations);
  if (typeof value === "string") return GENERATED_NAME.test(value) ? GENERATED : value;
  if (!value || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([name, v]) => !isObservation(name, v))
      .map(([name, v]) => [name, withoutObservations(v)]),
  );
}
