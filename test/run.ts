/**
 * Runs test tiers with node:test: `tsx test/run.ts <unit|integration|system|e2e|all>
 * [--without-browser] [filter...]` (`tiers.ts` says what each needs; `e2e` is integration and
 * system; `all`, which `npm test` runs, is the unit tier then the two others, in one pool of workers).
 *
 * Before any test runs, it checks what the chosen files need from the machine (`preflight.ts`: Go
 * or `KUBELOOP_ASSETS`, nginx, a browser) and stops with one message naming every missing piece.
 * `--without-browser` leaves out the files that need a browser, saying so before and after the run.
 *
 * The end-to-end tiers start one local control plane for the whole run, hand it to every test file
 * through `KUBECONFIG` (and `KUBELOOP_E2E_BIN` for the built kubectl), serve the reference
 * operators' conversion webhooks for the whole cluster (as `kubeloop test` does, see
 * `serveConversions`), and stop it at the end. Filters keep only files whose path contains one of them.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { nodeTestArgs, testFilesIn } from "../src/cli/test-files.ts";
import type { Operator } from "../src/operator/index.ts";
import { leftOutLines, type Plan, preflight, prerequisites, stoppedMessage } from "./preflight.ts";
import { e2eTierOf, endToEndGroups, minutes, type Tier, tiers } from "./tiers.ts";

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

/**
 * How many test processes run at once. Unit files are CPU-bound: 2 on 2 cores. End-to-end
 * processes (a system file, or up to three integration files of one folder: {@link endToEndGroups})
 * mostly wait on a cluster (Lease durations, a conformance kit's windows): at 3, the two CPUs were
 * busy 65 % of an 18-minute run (1,429 s of CPU, `/usr/bin/time -v`, 2026-11-28); at 4, 71 % of a
 * 16-minute one (1,369 s); so 5 run at once (every test passed at 5 under a load average of
 * 17–20 from other work on the machine, 20 min 6 s).
 */
const concurrency = (tier: "unit" | "e2e") =>
  process.env.KUBELOOP_TEST_CONCURRENCY ?? (tier === "unit" ? "2" : "5");

function runNodeTest(files: string[], env: NodeJS.ProcessEnv, options: string[]): Promise<number> {
  const args = ["--conditions=kubeloop-source", ...nodeTestArgs(files, options)];
  // Processes the tests spawn (operator fixtures) resolve `kubeloop` to the sources as well.
  const nodeOptions = [env.NODE_OPTIONS, "--conditions=kubeloop-source"].filter(Boolean).join(" ");
  const child = spawn(process.execPath, args, {
    stdio: "inherit",
    env: { ...env, NODE_OPTIONS: nodeOptions },
  });
  return new Promise((resolve) => child.on("exit", (code) => resolve(code ?? 1)));
}

/**
 * The files that run for minutes, longest first, with their tests' time in a full end-to-end run
 * on 2 cores, 5 at once (fresh-clone CI, 2026-11-28, load average 9–14; the reporter prints them):
 * they start first, longest first ({@link runGroups} keeps the order), so that the run does not end
 * waiting on one started late. Before, node:test's own order (by path) started the explore file
 * (6 min) 14 min into a 20-minute run, and it ended the run.
 */
const longest = [
  "sharding/myproxy.test", // 431 s
  "myproxy/test/e2e/conformance-sharded.test", // 342 s
  "conformance/explore.test", // 310 s
  "myproxy/test/e2e/conformance.test", // 275 s
  "conformance/verify-cli.test", // 261 s
  "conformance/negative.test", // 206 s
  "conformance/kit.test", // 198 s
  "conformance/explore-reference.test", // 110 s (stop 46, alone)
  "loadtest/test/e2e/conformance.test", // 179 s
  "election/rolling-update.test", // 151 s
  "sharding/rolling-update.test", // 138 s
  "chaos/silenced-watches-defaults.test", // 130 s
  "cli/init.test", // 130 s
  "webhooks/admission.test", // 85 s
  "cluster/restart.test", // 80 s
  "myproxy/test/e2e/versions.test", // 78 s
];

/** Where `file` comes in {@link longest}; the others after it, in their order. */
const rank = (file: string) => {
  const at = longest.findIndex((fragment) => file.includes(fragment));
  return at === -1 ? longest.length : at;
};

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
  return files.sort((a, b) => rank(a) - rank(b));
}

/** The reference operators (they import `kubeloop`, resolved to the sources as in the test processes). */
async function referenceOperators(): Promise<Operator[]> {
  const { loadOperator } = await import("../src/operator/index.ts");
  const dir = join(root, "..", "operators");
  return Promise.all(readdirSync(dir).map((name) => loadOperator(join(dir, name, "operator.ts"))));
}

/** A run of some tiers: its line for the summary, and its exit code. */
interface TierRun {
  line: string;
  code: number;
}

/**
 * Runs `groups` of test files with node:test, each group in a process of its own, started in the
 * order given: each group becomes an entry module that imports its files, in a temporary directory,
 * named to sort in that order (node:test sorts the files it is given by path, so the order of its
 * arguments is not the order it starts them in). Tests report their own files, not the entries.
 */
async function runGroups(groups: string[][], env: NodeJS.ProcessEnv, options: string[]): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "kubeloop-tests-"));
  try {
    return await runNodeTest(
      groups.map((group, i) => entryModule(dir, i, group)),
      env,
      options,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Writes the entry module of the `index`-th group, which imports `group`'s files; returns its path. */
function entryModule(dir: string, index: number, group: string[]): string {
  const name = relative(repository, group[0] ?? "")
    .replace(/\.test\.ts$/, "")
    .replaceAll("/", "-");
  const entry = join(dir, `${String(index).padStart(3, "0")}-${name}.test.mjs`);
  const imports = group.map((file) => `await import(${JSON.stringify(pathToFileURL(file).href)});`);
  writeFileSync(entry, `${imports.join("\n")}\n`);
  return entry;
}

/**
 * Runs the unit tier, timed, each folder's files in one process, as `go test` runs a package's
 * tests in one binary. A process per file spent most of the tier starting Node and loading the same
 * modules through tsx again: 196 files took 1 min 48 s; as 34 folders, 32 s, with the same 2,025
 * tests passing (2 cores, 2026-11-28).
 */
async function runUnit(files: string[]): Promise<TierRun> {
  const start = performance.now();
  const options = ["--test-reporter=spec", `--test-concurrency=${concurrency("unit")}`];
  const byFolder = new Map<string, string[]>();
  for (const file of files) byFolder.set(dirname(file), [...(byFolder.get(dirname(file)) ?? []), file]);
  const code = await runGroups([...byFolder.values()], process.env, options);
  return { line: tierTime("unit tier", files.length, performance.now() - start, code), code };
}

/**
 * Runs the end-to-end tiers in one pool of workers, the {@link longest} files first, on one
 * local control plane started for them; `tier-reporter.mjs` says when each tier's last file ended.
 * (The modules that needs are imported here, so that the check, and `rerunFromSources`, load only
 * what they use and answer in seconds.)
 */
async function runOnSharedCluster(tierOf: Record<string, Tier>): Promise<TierRun> {
  const files = Object.keys(tierOf);
  const { startCluster } = await import("../src/cluster/index.ts");
  const { whileServingConversions } = await import("../src/testing/index.ts");
  const start = performance.now();
  const cluster = await startCluster({ nodes: 3 });
  const stop = () => void cluster.stop().then(() => process.exit(130));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  const options = [
    ...["--test-reporter=spec", "--test-reporter-destination=stdout"],
    ...[`--test-reporter=${join(root, "tier-reporter.mjs")}`, "--test-reporter-destination=stdout"],
    `--test-concurrency=${concurrency("e2e")}`,
  ];
  try {
    const code = await whileServingConversions(
      cluster.kubeconfigPath,
      await referenceOperators(),
      (conversions) =>
        runGroups(
          endToEndGroups(files, tierOf),
          {
            ...process.env,
            ...conversions,
            KUBECONFIG: cluster.kubeconfigPath,
            KUBELOOP_E2E_BIN: dirname(cluster.assets.kubectl),
            KUBELOOP_TEST_TIERS: JSON.stringify(tierOf),
          },
          options,
        ),
    );
    return { line: tierTime("end-to-end tiers", files.length, performance.now() - start, code), code };
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
  const kept = (tier: Tier) =>
    (files.get(tier) ?? []).filter((f) => plan.files.includes(relative(repository, f)));
  const runs: TierRun[] = [];
  if (kept("unit").length > 0) runs.push(await runUnit(kept("unit")));
  const endToEnd = Object.fromEntries(
    (["system", "integration"] as const)
      .flatMap((tier) => kept(tier).map((f) => [f, tier] as const))
      .sort(([a], [b]) => rank(a) - rank(b)),
  );
  if (Object.keys(endToEnd).length > 0 && runs.every((r) => r.code === 0))
    runs.push(await runOnSharedCluster(endToEnd));
  for (const { line } of runs) console.log(`ℹ ${line}`);
  announce(plan);
  return plan.files.length === 0 ? 1 : (runs.find((r) => r.code !== 0)?.code ?? 0);
}

/** One line saying how long a run of tiers took: `.ci/run` and developers see where the time goes. */
function tierTime(what: string, files: number, ms: number, code: number): string {
  const failed = code === 0 ? "" : ` (failed, exit ${code})`;
  return `${what}: ${files} file${files === 1 ? "" : "s"} in ${minutes(ms)}${failed}`;
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
