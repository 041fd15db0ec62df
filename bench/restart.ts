/**
 * Recovery after an apiserver restart under load (issue 37): both reference operators in one
 * manager of this process, at its defaults, while 100 objects are being created; kube-apiserver is
 * killed (SIGKILL) after the 40th and kept down 5 s (`test/e2e/cluster/fixtures/restart-load.ts`).
 * Per run, on a fresh local control plane: when every output existed and when every object had
 * converged, from the moment the apiserver answered `/readyz` again, and the operators' part of
 * it (operator lag: the longest an object's status took to say its child was ready; the rest is
 * the control plane's own: controller manager, scheduler, kwok). Goal: converged ≤ 10 s. Each run
 * is followed by its baseline on another fresh plane: the same load with no restart, measured from
 * the 40th create — how long the 60 objects still to come take to converge with no outage at all.
 *
 * Usage: `npx tsx bench/restart.ts [runs]` (default 5); writes `bench/results/restart.json`.
 */
import pino from "pino";
import { startCluster } from "../src/cluster/index.ts";
import {
  installBothCrds,
  type RestartFigures,
  restartUnderLoad,
  startBothOperators,
} from "../test/e2e/cluster/fixtures/restart-load.ts";
import { fmt, loadLine, machineLine, median, table, writeResult } from "./support/report.ts";

const runs = Number(process.argv[2] ?? 5);
const figures: RestartFigures[] = [];
const baseline: RestartFigures[] = [];

/** One run on a fresh control plane: with the restart, or the baseline of the same load without it. */
async function measure(run: number, restart: boolean): Promise<RestartFigures> {
  const cluster = await startCluster({ nodes: 3, report: () => {} });
  try {
    await installBothCrds(cluster);
    const both = await startBothOperators(cluster, { logger: pino({ level: "silent" }) });
    try {
      const result = await restartUnderLoad(cluster, 120_000, { restart });
      const figures = JSON.stringify(result, (_, v) => (typeof v === "number" ? Math.round(v) : v));
      console.error(`run ${run}${restart ? "" : " (no restart)"}: ${figures}`);
      return result;
    } finally {
      await both.stop();
    }
  } finally {
    await cluster.stop();
  }
}

for (let run = 1; run <= runs; run++) {
  figures.push(await measure(run, true));
  baseline.push(await measure(run, false));
}

const s = (ms: number) => `${fmt(ms / 1000, 1)} s`;
const row = (name: string, key: keyof RestartFigures, of = figures) => {
  const values = of.map((f) => f[key]);
  return [name, s(median(values)), s(Math.min(...values)), s(Math.max(...values)), values.map(s).join(", ")];
};
console.log(machineLine());
console.log(loadLine());
console.log(`\nAfter kube-apiserver was ready again (5 s down, 100 objects being created), ${runs} runs:\n`);
console.log(
  table(
    ["", "median", "min", "max", "runs"],
    [
      row("every output exists", "outputsRightMs"),
      row("everything converged", "convergedMs"),
      row("operator lag (child ready → status)", "operatorLagMs"),
      row("baseline, no restart: everything converged after the 40th create", "convergedMs", baseline),
      row("baseline, no restart: operator lag", "operatorLagMs", baseline),
    ],
  ),
);
writeResult("restart", { runs: figures, baseline });
process.exit(0);
