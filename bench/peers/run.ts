/**
 * `npm run bench`: kubeloop against its peers on the same local control plane, same run.
 *
 * Every contender runs the same Widget operator (shared/widget.ts) as its own OS process, through
 * its own counting proxy, on a fresh cluster per contender and repetition, with 4 workers, client
 * rate limits off (or, with `--defaults`, every contender at its framework's defaults) and a 30 s resync. Scenarios, in order on that cluster: converge N Widgets
 * created at once; settled for 2 minutes (writes counted); spec update of every Widget; repair of
 * deleted children (p50, p99); restart with N Widgets present; change during restart (50 Widgets
 * created 0.5 s after the start, p50/p99 to converged); starvation (a steady stream of spec changes
 * while the restarted operator walks its initial list). Node contenders run as deployed: plain
 * `node` on JavaScript, kubeloop from its built dist/ (harness/build.ts), on the Node.js LTS the
 * generated Dockerfile runs (`--node`). Writes
 * bench/results/compare.json (raw runs and medians), bench/results/results.md and
 * bench/results/compare-*.svg.
 *
 * Flags:
 *   --quick                 N=200, 1 repetition, 30 s settled (for development)
 *   --n 1000,5000           object counts            --reps 3          repetitions (medians)
 *   --contenders a,b        kubeloop, controller-runtime, client-node, dot-i, floor
 *   --scenarios a,b         converge, settled, update, repair, restart, change-during-restart,
 *                           starvation (converge always runs)
 *   --settle-seconds 120    --settle-reps K  (settled scenario only in the first K repetitions)
 *   --workers 4   --resync-seconds 30   --repair-count 100   --change-count 50   --stream-rate 300
 *   --node lts              the Node contenders' node: lts (the generated Dockerfile's Node.js LTS,
 *                           installed into the kubeloop cache when missing) or current (the runner's)
 *   --defaults              every contender at its framework's own default client settings instead of
 *                           its client-side rate limit off; written to compare-defaults.json and
 *                           the defaults section of results.md, the rest of results.md kept
 *   --profile               CPU profiles of the Node contenders (--cpu-prof) next to their logs
 *   --report <compare.json> only rewrite results.md and the charts from a previous run's JSON
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildContenders } from "./harness/build.ts";
import { type ClientSettings, rawFileOf } from "./harness/client-settings.ts";
import { type ContenderName, contenderNames, defaultContenders } from "./harness/contenders.ts";
import { describeMachine } from "./harness/machine.ts";
import { resultsDir } from "./harness/paths.ts";
import { type Report, writeReport } from "./harness/report.ts";
import { runSequence, type ScenarioName, scenarioNames } from "./harness/sequence.ts";
import { ensureGoPeer, ensureNodePeers, nodeForContenders } from "./harness/setup.ts";

const { values } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    n: { type: "string" },
    reps: { type: "string" },
    contenders: { type: "string" },
    scenarios: { type: "string" },
    "settle-seconds": { type: "string" },
    "settle-reps": { type: "string" },
    workers: { type: "string", default: "4" },
    "resync-seconds": { type: "string", default: "30" },
    "repair-count": { type: "string", default: "100" },
    "change-count": { type: "string", default: "50" },
    "stream-rate": { type: "string", default: "300" },
    node: { type: "string", default: "lts" },
    defaults: { type: "boolean", default: false },
    profile: { type: "boolean", default: false },
    report: { type: "string" },
  },
});

const log = (line: string) => console.log(line);
const list = (s: string | undefined) =>
  s
    ?.split(",")
    .map((x) => x.trim())
    .filter(Boolean);

if (values.report) {
  const report = JSON.parse(readFileSync(values.report, "utf8")) as Report;
  log(writeReport(report, resultsDir));
  process.exit(0);
}

const settings = {
  sizes: (list(values.n) ?? (values.quick ? ["200"] : ["1000", "5000"])).map(Number),
  reps: Number(values.reps ?? (values.quick ? 1 : 3)),
  contenders: (list(values.contenders) ?? defaultContenders) as ContenderName[],
  settleSeconds: Number(values["settle-seconds"] ?? (values.quick ? 30 : 120)),
  settleReps: Number(values["settle-reps"] ?? Number.POSITIVE_INFINITY),
  workers: Number(values.workers),
  resyncSeconds: Number(values["resync-seconds"]),
  repairCount: Number(values["repair-count"]),
  changeCount: Number(values["change-count"]),
  streamRate: Number(values["stream-rate"]),
  clientSettings: (values.defaults ? "defaults" : "limits-off") as ClientSettings,
};
for (const c of settings.contenders) {
  if (!contenderNames.includes(c))
    throw new Error(`unknown contender ${c}; choose from ${contenderNames.join(", ")}`);
}

ensureNodePeers(log);
const built = await buildContenders(log);
const goBinary = settings.contenders.includes("controller-runtime") ? ensureGoPeer(log) : "";
const node = nodeForContenders(values.node, log);
const scenarios = (list(values.scenarios) ?? scenarioNames) as ScenarioName[];
for (const s of scenarios) {
  if (!scenarioNames.includes(s))
    throw new Error(`unknown scenario ${s}; choose from ${scenarioNames.join(", ")}`);
}

const logDir = mkdtempSync(join(tmpdir(), "kubeloop-bench-"));
log(`logs and profiles: ${logDir}`);
const started = Date.now();
const report: Report = {
  benchmark: "compare",
  date: new Date().toISOString(),
  machine: describeMachine(goBinary, node),
  settings: { ...settings, scenarios },
  runs: [],
  wallSeconds: 0,
};
mkdirSync(resultsDir, { recursive: true });
const rawPath = join(resultsDir, rawFileOf(settings.clientSettings));

for (let rep = 1; rep <= settings.reps; rep++) {
  for (const n of settings.sizes) {
    // Rotate the order every repetition, so drift on a shared machine does not favour one contender.
    const order = settings.contenders.map((_, i, a) => a[(i + rep - 1) % a.length] as ContenderName);
    for (const contender of order) {
      log(`rep ${rep}/${settings.reps}, N=${n}, ${contender}`);
      const result = await runSequence(
        {
          contender,
          n,
          scenarios,
          settleSeconds: settings.settleSeconds,
          settle: rep <= settings.settleReps,
          workers: settings.workers,
          resyncSeconds: settings.resyncSeconds,
          clientSettings: settings.clientSettings,
          repairCount: settings.repairCount,
          changeCount: settings.changeCount,
          streamRate: settings.streamRate,
          logDir,
          built,
          goBinary,
          node,
          cpuProfile: values.profile && contender !== "controller-runtime",
        },
        log,
      );
      report.runs.push({ ...result, rep });
      report.wallSeconds = (Date.now() - started) / 1000;
      writeFileSync(rawPath, `${JSON.stringify(report, null, 2)}\n`);
    }
  }
}
log(writeReport(report, resultsDir));
log(`total ${(report.wallSeconds / 60).toFixed(1)} min; logs in ${logDir}`);
