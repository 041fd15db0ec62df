/**
 * Recovery after an apiserver restart under load (issue 37): both reference operators in one
 * manager of this process, at its defaults, while 100 objects are being created; kube-apiserver is
 * killed (SIGKILL) after the 40th and kept down 5 s (`test/e2e/cluster/fixtures/restart-load.ts`).
 * Per run, on a fresh local control plane: when every output existed and when every object had
 * converged, from the moment the apiserver answered `/readyz` again, and the operators' part of
 * it (operator lag: the longest an object's status took to say its child was ready; the rest is
 * the control plane's own: controller manager, scheduler, kwok). Goal: converged ≤ 10 s.
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
for (let run = 1; run <= runs; run++) {
  const cluster = await startCluster({ nodes: 3, report: () => {} });
  try {
    await installBothCrds(cluster);
    const both = await startBothOperators(cluster, { logger: pino({ level: "silent" }) });
    try {
      const result = await restartUnderLoad(cluster, 120_000);
      console.error(
        `run ${run}: ${JSON.stringify(result, (_, v) => (typeof v === "number" ? Math.round(v) : v))}`,
      );
      figures.push(result);
    } finally {
      await both.stop();
    }
  } finally {
    await cluster.stop();
  }
}

const s = (ms: number) => `${fmt(ms / 1000, 1)} s`;
const row = (name: string, key: keyof RestartFigures) => {
  const values = figures.map((f) => f[key]);
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
    ],
  ),
);
writeResult("restart", { runs: figures });
process.exit(0);
