/**
 * The test tiers, named by what they need: `unit` (nothing), `integration` (the run's shared local
 * control plane) and `system` (control planes of their own: restarted, compacted, audited, gated,
 * or a conformance-kit run's). Integration and system files live together under `test/e2e` and
 * `operators/<name>/test/e2e`, mirroring `src`; what puts a file in the system tier is a call, in the
 * file itself, of one of the functions that start a control plane.
 */

import { dirname } from "node:path";

/** The tiers, in the order `all` runs them (integration and system side by side, in one pool of workers). */
export const tiers = ["unit", "integration", "system"] as const;

/** A tier of the suite. */
export type Tier = (typeof tiers)[number];

/**
 * Calls that start a control plane of the calling file's own: the cluster package's, the e2e
 * fixtures' (`ownCluster`, `clusterOfItsOwn`, `auditedCluster`, `kitCluster`), the testing kit's
 * member clusters (`testFleet`), the conformance kit's (`runConformance`, `openSession`), and
 * `kubeloop verify` run as a command.
 */
const ownControlPlane =
  /\b(startCluster|startMemberClusters|ownCluster|clusterOfItsOwn|auditedCluster|kitCluster|testFleet|runConformance|openSession)\(|"kubeloop", "verify"/;

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

/** How many integration files of one folder share a test process. */
export const integrationGroup = 3;

/**
 * The processes of the end-to-end tiers, in the order of `files`: a system file alone (a control
 * plane and minutes of its own), integration files of one folder {@link integrationGroup} to a
 * process, where they run one after the other. Each process spends about 2.2 s of CPU loading the
 * sources through tsx (its hooks run off-thread: a round trip per module), and these tiers are
 * CPU-bound on 2 cores: 85 integration files in 85 processes spent 3 min of CPU starting.
 */
export function endToEndGroups(files: readonly string[], tierOf: Record<string, Tier>): string[][] {
  const groups: string[][] = [];
  const open = new Map<string, string[]>();
  for (const file of files) {
    if (tierOf[file] === "system") {
      groups.push([file]);
      continue;
    }
    let group = open.get(dirname(file));
    if (!group || group.length === integrationGroup) {
      group = [];
      open.set(dirname(file), group);
      groups.push(group);
    }
    group.push(file);
  }
  return groups;
}
