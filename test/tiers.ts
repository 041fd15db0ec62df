/**
 * The test tiers, named by what they need: `unit` (nothing), `integration` (the run's shared local
 * control plane) and `system` (control planes of their own: restarted, compacted, audited, gated,
 * or a conformance-kit run's). Integration and system files live together under `test/e2e` and
 * `operators/<name>/test/e2e`, mirroring `src`; what puts a file in the system tier is a call, in the
 * file itself, of one of the functions that start a control plane.
 */

/** The tiers, in the order `all` runs them (integration and system side by side, in one pool of workers). */
export const tiers = ["unit", "integration", "system"] as const;

/** A tier of the suite. */
export type Tier = (typeof tiers)[number];

/**
 * Calls that start a control plane of the calling file's own: the cluster package's, the e2e
 * fixtures' (`ownCluster`, `clusterOfItsOwn`, `auditedCluster`, `kitCluster`), the conformance
 * kit's (`runConformance`, `openSession`), and `kubeloop verify` run as a command.
 */
const ownControlPlane =
  /\b(startCluster|ownCluster|clusterOfItsOwn|auditedCluster|kitCluster|runConformance|openSession)\(|"kubeloop", "verify"/;

/** The tier of an end-to-end file, from its text: `system` when it starts a control plane of its own. */
export function e2eTierOf(text: string): Exclude<Tier, "unit"> {
  return ownControlPlane.test(text) ? "system" : "integration";
}

/** `ms` as "3 min 4 s", or "12 s" under a minute. */
export function minutes(ms: number): string {
  return ms >= 60_000
    ? `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`
    : `${Math.round(ms / 1000)} s`;
}
