/**
 * The raw runs reduced to medians per contender and N: times, CPU, memory and requests per object
 * of every scenario (NaN where a scenario did not run or failed).
 */
import { type ContenderName, contenderNames } from "./contenders.ts";
import type { RunResult } from "./sequence.ts";

/** The medians of one contender at one N (NaN where a scenario did not run or failed). */
export interface Medians {
  contender: ContenderName;
  n: number;
  runs: number;
  failed: number;
  convergeSeconds: number;
  convergeCpuSeconds: number;
  cpuMsPerObject: number;
  convergePerObject: Record<string, number>;
  convergePeakRssMiB: number;
  settledWrites: number;
  settledRequests: number;
  settledCpuSeconds: number;
  updateSeconds: number;
  updateCpuMsPerObject: number;
  updatePerObject: Record<string, number>;
  repairP50Ms: number;
  repairP99Ms: number;
  repairRepaired: number;
  repairPerDeletion: Record<string, number>;
  restartFirstSeconds: number;
  restartAllSeconds: number;
  restartPeakRssMiB: number;
  restartCpuSeconds: number;
  restartRequests: Record<string, number>;
  changeP50Ms: number;
  changeP99Ms: number;
  changeAllSeconds: number;
  starvationSeconds: number;
  starvationChangedP50Ms: number;
  starvationChangedP99Ms: number;
  streamPerSecond: number;
  peakRssMiB: number;
}

/** A run's figure: null (an infinite one, as JSON keeps it) as ∞, absent as NaN. */
function figure(x: number | null | undefined): number {
  return x === null ? Number.POSITIVE_INFINITY : (x ?? Number.NaN);
}

function median(xs: number[]): number {
  const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

const verbs = ["get", "list", "watch", "create", "update", "patch", "delete"];

function perVerb(
  runs: RunResult[],
  pick: (r: RunResult) => Record<string, number | undefined> | undefined,
  per: number,
) {
  const out: Record<string, number> = {};
  for (const verb of verbs) {
    const m = median(
      runs.map((r) => {
        const counts = pick(r);
        return counts ? (counts[verb] ?? 0) / per : Number.NaN;
      }),
    );
    if (m > 0) out[verb] = m;
  }
  return out;
}

/** The medians of every contender at every N of `runs`, keyed `<contender>/<n>`. */
export function computeMedians(runs: RunResult[]): Record<string, Medians> {
  const out: Record<string, Medians> = {};
  for (const contender of contenderNames) {
    for (const n of [...new Set(runs.map((r) => r.n))]) {
      const rs = runs.filter((r) => r.contender === contender && r.n === n);
      if (rs.length === 0) continue;
      const m = (pick: (r: RunResult) => number | null | undefined) => median(rs.map((r) => figure(pick(r))));
      const repaired = rs.map((r) => r.repair?.deleted ?? 1);
      out[`${contender}/${n}`] = {
        contender,
        n,
        runs: rs.length,
        failed: rs.filter((r) => r.error).length,
        convergeSeconds: m((r) => r.converge?.seconds),
        convergeCpuSeconds: m((r) => r.converge?.cpuSeconds),
        cpuMsPerObject: m((r) => (r.converge ? (r.converge.cpuSeconds * 1000) / n : undefined)),
        convergePerObject: perVerb(rs, (r) => r.converge?.requests.byVerb, n),
        convergePeakRssMiB: m((r) => r.converge?.peakRssMiB),
        settledWrites: m((r) => r.settled?.requests.writes),
        settledRequests: m((r) => r.settled?.requests.total),
        settledCpuSeconds: m((r) => r.settled?.cpuSeconds),
        updateSeconds: m((r) => r.update?.seconds),
        updateCpuMsPerObject: m((r) => (r.update ? (r.update.cpuSeconds * 1000) / n : undefined)),
        updatePerObject: perVerb(rs, (r) => r.update?.requests.byVerb, n),
        repairP50Ms: m((r) => r.repair?.p50Ms),
        repairP99Ms: m((r) => r.repair?.p99Ms),
        repairRepaired: m((r) => r.repair?.repaired),
        repairPerDeletion: perVerb(rs, (r) => r.repair?.requests.byVerb, median(repaired)),
        restartFirstSeconds: m((r) => r.restart?.firstReconcileSeconds),
        restartAllSeconds: m((r) => r.restart?.allReconciledSeconds),
        restartPeakRssMiB: m((r) => r.restart?.peakRssMiB),
        restartCpuSeconds: m((r) => r.restart?.cpuSeconds),
        restartRequests: perVerb(rs, (r) => r.restart?.requests.byVerb, 1),
        changeP50Ms: m((r) => r.changeDuringRestart?.p50Ms),
        changeP99Ms: m((r) => r.changeDuringRestart?.p99Ms),
        changeAllSeconds: m((r) => r.changeDuringRestart?.allReconciledSeconds),
        starvationSeconds: m((r) => r.starvation?.lastLowPrioritySeconds),
        starvationChangedP50Ms: m((r) => r.starvation?.changedP50Ms),
        starvationChangedP99Ms: m((r) => r.starvation?.changedP99Ms),
        streamPerSecond: m((r) => r.starvation?.changesPerSecond),
        peakRssMiB: m((r) => r.peakRssMiB),
      };
    }
  }
  return out;
}
