/** Naming rules for kinds: default plurals and the checks the apiserver applies to CRD names. */
import { KindDefinitionError } from "./errors.ts";

const dnsLabel = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const kindPattern = /^[A-Z][A-Za-z0-9]*$/;

/**
 * The default plural resource name of a kind: lower case, then the usual English rules
 * (`Policy` → `policies`, `Gateway` → `gateways`, `Ingress` → `ingresses`, `Box` → `boxes`,
 * `Match` → `matches`, `LoadTest` → `loadtests`).
 */
export function pluralize(kind: string): string {
  const lower = kind.toLowerCase();
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/.test(lower)) return `${lower}es`;
  return `${lower}s`;
}

/** Throws unless `group` is a DNS subdomain with at least one dot, as CRD groups must be. */
export function checkGroup(kind: string, group: string): void {
  if (!dnsSubdomain.test(group) || !group.includes(".") || group.length > 253) {
    throw new KindDefinitionError(
      kind,
      `group "${group}" is not a DNS subdomain with a dot`,
      'use a domain you own, e.g. "example.com" or "apps.example.com"',
    );
  }
}

/** Throws unless `kind` is CamelCase starting with an upper-case letter. */
export function checkKindName(kind: string): void {
  if (!kindPattern.test(kind)) {
    throw new KindDefinitionError(kind, `kind "${kind}" is not CamelCase`, 'name it like "LoadTest"');
  }
}

/** Throws unless `value` is a lower-case DNS label (plural, singular, short name, version). */
export function checkLabel(kind: string, what: string, value: string): void {
  if (!dnsLabel.test(value) || value.length > 63) {
    throw new KindDefinitionError(
      kind,
      `${what} "${value}" is not a lower-case DNS label`,
      "use lower-case letters, digits and '-', starting with a letter, at most 63 characters",
    );
  }
}
