/**
 * Runs test tiers with node:test: `tsx test/run.ts <unit|integration|system|e2e|all>
 * [--without-browser] [filter...]` (`tiers.ts` says what each needs; `e2e` is integration and
 * system; `all`, which `npm test` runs, is the unit tier then the two others side by side).
 *
 * Before any test runs, it checks what the chosen files need from the machine (`preflight.ts`: Go
 * or `KUBELOOP_ASSETS`, nginx, a browser) and stops with one message naming every missing piece.
 * `--without-browser` leaves out the files that need a browser, saying so before and after the run.
 *
 * The end-to-end tiers start one local control plane for the whole run, hand it to every test file
 * through `KUBECONFIG` (and `KUBELOOP_E2E_BIN` for the built kubectl), serves the reference
 * operators' conversion webhooks for the whole cluster (as `kubeloop test` does, see
 * `serveConversions`), and stops it at the end. Filters keep only files whose path contains one of them.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { nodeTestArgs, testFilesIn } from "../src/cli/test-files.ts";
import type { Operator } from "../src/operator/index.ts";
import { leftOutLines, type Plan, preflight, prerequisites, stoppedMessage } from "./preflight.ts";
import { e2eTierOf, type Tier, tiers } from "./tiers.ts";

const root = dirname(fileURLToPath(import.meta.url));
const repository = join(root, "..");
const [chosen = "unit", ...rest] = process.argv.slice(2);
const switches = rest.filter((a) => a.startsWith("--"));
const filters = rest.filter((a) => !a.startsWith("--"));

function testFiles(dir: string): string[] {
  return testFilesIn(dir).filter(
    (f) => filters.length === 0 || filters.some((x) => relative(repository, f).includes(x)),
  );
}

function runNodeTest(files: string[], env: NodeJS.ProcessEnv): Promise<number> {
  // End-to-end files mostly wait on a cluster: on 2 cores, 3 at once ran them in 13 min against
  // 19 min for 2 (2026-11-25); the integration and system tiers run side by side, 2 files each.
  // Unit files are CPU-bound, 2 at once.
  const concurrency = process.env.KUBELOOP_TEST_CONCURRENCY ?? "2";
  const args = [
    "--conditions=kubeloop-source",
    ...nodeTestArgs(files, ["--test-reporter=spec", `--test-concurrency=${concurrency}`]),
  ];
  // Processes the tests spawn (operator fixtures) resolve `kubeloop` to the sources as well.
  const nodeOptions = [env.NODE_OPTIONS, "--conditions=kubeloop-source"].filter(Boolean).join(" ");
  const child = spawn(process.execPath, args, {
    stdio: "inherit",
    env: { ...env, NODE_OPTIONS: nodeOptions },
  });
  return new Promise((resolve) => child.on("exit", (code) => resolve(code ?? 1)));
}

/**
 * Files that run for minutes (each conformance-kit run starts a control plane of its own and runs
 * every check): they start first, so that the run does not end waiting on one started last.
 */
const long =
  /conformance|verify-cli|init\.test|sharding\/(replicas|myproxy)|rolling-update|chaos\/silenced-watches-defaults/;

/** Test files of a tier: `test/<dir>/**` plus each reference operator's `operators/<name>/test/<dir>/**`, the long ones first. */
function tierFiles(tier: Tier): string[] {
  const dir = tier === "unit" ? "unit" : "e2e";
  const operators = join(root, "..", "operators");
  const operatorTests = readdirSync(operators)
    .map((name) => join(operators, name, "test", dir))
    .filter((d) => existsSync(d))
    .flatMap(testFiles);
  const files = [...testFiles(join(root, dir)), ...operatorTests].filter(
    (f) => tier === "unit" || e2eTierOf(readFileSync(f, "utf8")) === tier,
  );
  return [...files.filter((f) => long.test(f)), ...files.filter((f) => !long.test(f))];
}

/** The reference operators (they import `kubeloop`, resolved to the sources as in the test processes). */
async function referenceOperators(): Promise<Operator[]> {
  const { loadOperator } = await import("../src/operator/index.ts");
  const dir = join(root, "..", "operators");
  return Promise.all(readdirSync(dir).map((name) => loadOperator(join(dir, name, "operator.ts"))));
}

/** A tier's run: its line for the summary, and its exit code. */
interface TierRun {
  line: string;
  code: number;
}

/** Runs a tier's files with `env`, timing it. */
async function timed(tier: Tier, files: string[], env: NodeJS.ProcessEnv): Promise<TierRun> {
  const start = performance.now();
  const code = await runNodeTest(files, env);
  return { line: tierTime(tier, files.length, performance.now() - start, code), code };
}

/**
 * Runs the end-to-end tiers side by side on one local control plane started for them. (The
 * modules that needs are imported here, so that the check, and `rerunFromSources`, load only what
 * they use and answer in seconds.)
 */
async function onSharedCluster(runs: [Tier, string[]][]): Promise<TierRun[]> {
  const { startCluster } = await import("../src/cluster/index.ts");
  const { whileServingConversions } = await import("../src/testing/index.ts");
  const cluster = await startCluster({ nodes: 3 });
  const stop = () => void cluster.stop().then(() => process.exit(130));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    return await whileServingConversions(
      cluster.kubeconfigPath,
      await referenceOperators(),
      (conversions) => {
        const env = {
          ...process.env,
          ...conversions,
          KUBECONFIG: cluster.kubeconfigPath,
          KUBELOOP_E2E_BIN: dirname(cluster.assets.kubectl),
        };
        return Promise.all(runs.map(([tier, files]) => timed(tier, files, env)));
      },
    );
  } finally {
    await cluster.stop();
  }
}

/** The tiers `chosen` names; nothing, after saying why, when it or a switch is unknown. */
function chosenTiers(): Tier[] | undefined {
  const known = prerequisites.flatMap((p) => p.leaveOutWith ?? []);
  const unknown = switches.filter((s) => !known.includes(s));
  if (unknown.length > 0) console.error(`unknown option ${unknown.join(", ")} (known: ${known.join(", ")})`);
  else if (chosen === "all") return [...tiers];
  else if (chosen === "e2e") return ["integration", "system"];
  else if (tiers.includes(chosen as Tier)) return [chosen as Tier];
  else console.error(`unknown tier ${chosen}: use ${tiers.join(", ")}, e2e (integration and system) or all`);
  return undefined;
}

/**
 * Checks the prerequisites of every file of the run first, then runs the unit tier and, if it
 * passed, the end-to-end tiers side by side.
 */
async function main(): Promise<number> {
  const chosenTierList = chosenTiers();
  if (!chosenTierList) return 1;
  const files = new Map(chosenTierList.map((tier) => [tier, tierFiles(tier)]));
  const all = [...files.values()].flat().map((f) => relative(repository, f));
  if (all.length === 0) {
    console.error(`no ${chosen} test files match ${filters.join(", ") || "(all)"}`);
    return 1;
  }
  const plan = await preflight(all, switches);
  if (plan.missing.length > 0) {
    console.error(stoppedMessage(plan.missing));
    return 1;
  }
  announce(plan);
  const kept = [...files]
    .map(([tier, inTier]): [Tier, string[]] => [
      tier,
      inTier.filter((f) => plan.files.includes(relative(repository, f))),
    ])
    .filter(([, inTier]) => inTier.length > 0);
  const runs: TierRun[] = [];
  const unit = kept.find(([tier]) => tier === "unit");
  if (unit) runs.push(await timed("unit", unit[1], process.env));
  const onCluster = kept.filter(([tier]) => tier !== "unit");
  if (onCluster.length > 0 && runs.every((r) => r.code === 0))
    runs.push(...(await onSharedCluster(onCluster)));
  for (const { line } of runs) console.log(`ℹ ${line}`);
  announce(plan);
  return plan.files.length === 0 ? 1 : (runs.find((r) => r.code !== 0)?.code ?? 0);
}

/** One line saying how long a tier took: `.ci/run` and developers see where the time goes. */
function tierTime(tier: Tier, files: number, ms: number, code: number): string {
  const took =
    ms >= 60_000
      ? `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`
      : `${Math.round(ms / 1000)} s`;
  return `${tier} tier: ${files} file${files === 1 ? "" : "s"} in ${took}${code === 0 ? "" : ` (failed, exit ${code})`}`;
}

/** Says which files the run leaves out, if any (before the run, and again at its end). */
function announce(plan: Plan): void {
  for (const line of leftOutLines(plan)) console.log(`ℹ ${line}`);
  if (plan.files.length === 0) console.error("no test file is left to run");
}

/**
 * Runs this file again with `kubeloop` resolved to the sources (`--conditions=kubeloop-source`)
 * when it was not, as `npx tsx test/run.ts` starts it; returns whether it did.
 */
function rerunFromSources(): boolean {
  if (import.meta.resolve("kubeloop").endsWith("/src/index.ts")) return false;
  const args = [...process.execArgv, "--conditions=kubeloop-source", ...process.argv.slice(1)];
  process.exitCode = spawnSync(process.execPath, args, { stdio: "inherit" }).status ?? 1;
  return true;
}

if (!rerunFromSources()) process.exitCode = await main();
