/**
 * Runs a test tier with node:test: `tsx test/run.ts unit` or `tsx test/run.ts e2e [filter...]`.
 *
 * The e2e tier starts one local control plane for the whole run, hands it to every test file
 * through `KUBECONFIG` (and `KUBELOOP_E2E_BIN` for the built kubectl), serves the reference
 * operators' conversion webhooks for the whole cluster (as `kubeloop test` does, see
 * `serveConversions`), and stops it at the end. Filters keep only files whose path contains one of them.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { testFilesIn } from "../src/cli/test.ts";
import { startCluster } from "../src/cluster/index.ts";
import { loadOperator, type Operator } from "../src/operator/index.ts";
import { whileServingConversions } from "../src/testing/index.ts";

const root = dirname(fileURLToPath(import.meta.url));
const [tier = "unit", ...filters] = process.argv.slice(2);

function testFiles(dir: string): string[] {
  return testFilesIn(dir).filter(
    (f) => filters.length === 0 || filters.some((x) => relative(join(root, ".."), f).includes(x)),
  );
}

function runNodeTest(files: string[], env: NodeJS.ProcessEnv): Promise<number> {
  // End-to-end files mostly wait on the cluster: on 2 cores, 3 at once ran the suite in 13 min
  // against 19 min for 2 (2026-11-25); unit files are CPU-bound, 2 at once.
  const concurrency = process.env.KUBELOOP_TEST_CONCURRENCY ?? (tier === "e2e" ? "3" : "2");
  const args = [
    "--conditions=kubeloop-source",
    "--import",
    "tsx",
    "--test",
    "--test-reporter=spec",
    `--test-concurrency=${concurrency}`,
    ...files,
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
const long = /conformance|verify-cli|init\.test|sharding\/(replicas|myproxy)|rolling-update/;

/** Test files of a tier: `test/<tier>/**` plus each reference operator's `operators/<name>/test/<tier>/**`, the long ones first. */
function tierFiles(): string[] {
  const operators = join(root, "..", "operators");
  const operatorTests = readdirSync(operators)
    .map((name) => join(operators, name, "test", tier))
    .filter((dir) => existsSync(dir))
    .flatMap(testFiles);
  const files = [...testFiles(join(root, tier)), ...operatorTests];
  return [...files.filter((f) => long.test(f)), ...files.filter((f) => !long.test(f))];
}

/** The reference operators (they import `kubeloop`, resolved to the sources as in the test processes). */
function referenceOperators(): Promise<Operator[]> {
  const dir = join(root, "..", "operators");
  return Promise.all(readdirSync(dir).map((name) => loadOperator(join(dir, name, "operator.ts"))));
}

async function main(): Promise<number> {
  const files = tierFiles();
  if (files.length === 0) {
    console.error(`no ${tier} test files match ${filters.join(", ") || "(all)"}`);
    return 1;
  }
  if (tier !== "e2e") return runNodeTest(files, process.env);
  const cluster = await startCluster({ nodes: 3 });
  const stop = () => void cluster.stop().then(() => process.exit(130));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    return await whileServingConversions(cluster.kubeconfigPath, await referenceOperators(), (conversions) =>
      runNodeTest(files, {
        ...process.env,
        ...conversions,
        KUBECONFIG: cluster.kubeconfigPath,
        KUBELOOP_E2E_BIN: dirname(cluster.assets.kubectl),
      }),
    );
  } finally {
    await cluster.stop();
  }
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
