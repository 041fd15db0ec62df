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
 * Identities (uids, namespace) are not left out but renamed (see `renames` in `oracles.ts`), so
 * a value carrying a uid still compares.
 */

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const TIME_NAME = /(Time|Timestamp|^duration|^elapsed|^age)$/;
const DIGEST = /^[0-9a-f]{16,}$/;

/** Whether `value`, the member `name` of an object, observes time or digests content. */
function isObservation(name: string, value: unknown): boolean {
  if (TIME_NAME.test(name)) return true;
  return typeof value === "string" && (TIMESTAMP.test(value) || DIGEST.test(value));
}

/** A copy of `value` without any member, at any depth, that observes time or digests content. */
export function withoutObservations(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutObservations);
  if (!value || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([name, v]) => !isObservation(name, v))
      .map(([name, v]) => [name, withoutObservations(v)]),
  );
}
