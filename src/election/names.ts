/**
 * Lease names. The apiserver accepts a Lease only under a DNS-1123 subdomain name
 * (`NameIsDNSSubdomain` in k8s.io/kubernetes/pkg/apis/coordination/validation): at most 253
 * characters, lower-case letters, digits, `-` and `.`, starting and ending with a letter or digit.
 * Names kubeloop derives from an operator's name or a candidate's identity are made to fit.
 */
import { createHash } from "node:crypto";

/** The longest name the apiserver accepts for a Lease. */
export const maxLeaseNameLength = 253;

const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Whether the apiserver accepts `name` as a Lease's name: a DNS-1123 subdomain of at most 253 characters. */
export function isValidLeaseName(name: string): boolean {
  return name.length <= maxLeaseNameLength && dnsSubdomain.test(name);
}

/**
 * 16 hex digits of the SHA-256 of `value`: how a value that is no valid name — a candidate's
 * identity such as `$POD_NAME_$POD_UID` — goes into a Lease name, the value itself staying in
 * the Lease's `holderIdentity`.
 */
export function nameHash(value: string): string {
  return createHash("sha256").update(value).digest("hex").slice(0, 16);
}

/**
 * A valid Lease name for `name` that leaves `room` characters for a suffix (such as
 * `-shard-12-of-32`): `name` itself when it is valid and short enough, so that Leases keep their names;
 * otherwise `name` in lower case with every run of other characters turned into `-`, cut to fit,
 * and `-` plus the {@link nameHash} of `name`, so that two names that differ only in what was
 * replaced or cut get different Leases.
 *
 * @example
 * ```ts
 * leaseName("widgets"); // "widgets"
 * leaseName("Widgets_Operator"); // "widgets-operator-" + 16 hex digits
 * ```
 */
export function leaseName(name: string, room = 0): string {
  const limit = maxLeaseNameLength - room;
  if (name.length <= limit && dnsSubdomain.test(name)) return name;
  const hash = nameHash(name);
  const readable = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, Math.max(0, limit - hash.length - 1))
    .replace(/^-+|-+$/g, "");
  return readable ? `${readable}-${hash}` : hash;
}
