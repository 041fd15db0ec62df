/**
 * What the CRD's patterns let through but nginx would get wrong: a route's host and path are
 * written into `server_name` and `location` as they are, and nginx matches them against requests
 * in ways the patterns do not capture. Pure, so that the admission webhook (which refuses such a
 * route) and the controllers (which report one that got in anyway as `InvalidSpec`) always agree.
 *
 * - nginx matches a `location` against the request path after decoding `%XX`, resolving `.` and
 *   `..` segments and merging slashes, and never decodes the location itself (ngx_http_core_module,
 *   `location`; checked with the real nginx). So a prefix holding a percent-encoding, a dot segment
 *   or `//` matches no request written as the route's author meant it: `/a%20b` only a request for
 *   `/a%2520b`, `/a/../b` and `/a//b` none.
 * - `server_name` compares the request's `Host` (port stripped) with the name. An IP address there
 *   takes the requests addressed to it by number (the kubelet probes a pod at `Host: <pod IP>:<port>`)
 *   away from the default server and its `/healthz`; Ingress and Gateway API refuse IP hosts too.
 *   A label over 63 characters is no DNS name (RFC 1035 §2.3.4): no client resolves it.
 */
/** A part of a route's spec nginx would get wrong: the field, and why. */
export interface Hazard {
  readonly field: "spec.host" | "spec.path";
  readonly message: string;
}

/** The longest DNS label (RFC 1035 §2.3.4). */
const MAX_LABEL = 63;

/** One kind of hazard: where, when it is present, and why nginx would get it wrong. */
interface Rule extends Hazard {
  readonly present: (value: string) => boolean;
}

const labelsOf = (host: string) => host.split(".");
const segmentsOf = (path: string) => path.split("/").slice(1);

const RULES: readonly Rule[] = [
  {
    field: "spec.host",
    // No top-level domain is all digits (RFC 3696 §2): such a host is an address (10.0.0.7, 127.1).
    present: (host) => /^\d+$/.test(labelsOf(host).at(-1) ?? ""),
    message:
      "must be a host name, not an IP address: nginx would give this route the requests addressed to that IP, the readiness probes of a pod with it included",
  },
  {
    field: "spec.host",
    present: (host) => labelsOf(host).some((label) => label.length > MAX_LABEL),
    message: `has a label longer than ${MAX_LABEL} characters, the most a DNS label holds: no client can resolve it`,
  },
  {
    field: "spec.path",
    present: (path) => path.includes("%"),
    message:
      "must not hold a percent-encoding: nginx matches the decoded request path and never decodes a location, so this prefix would match only requests that encode the % itself (%25); write the character instead",
  },
  {
    field: "spec.path",
    present: (path) => segmentsOf(path).some((s) => s === "." || s === ".."),
    message:
      'must not hold a "." or ".." segment: nginx resolves them in request paths before matching, so no request would match this prefix',
  },
  {
    field: "spec.path",
    present: (path) => path.includes("//"),
    message:
      'must not hold an empty segment ("//"): nginx merges slashes in request paths before matching, so no request would match this prefix',
  },
];

/** The hazards in a route's host and path (`/` when absent, as the CRD defaults it), host first; none for a safe route. */
export function routeHazards(spec: { host: string; path?: string }): Hazard[] {
  const values = { "spec.host": spec.host, "spec.path": spec.path ?? "/" };
  return RULES.filter((rule) => rule.present(values[rule.field])).map(({ field, message }) => ({
    field,
    message,
  }));
}
