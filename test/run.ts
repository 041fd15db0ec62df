/**
 * Runs a test tier with node:test: `tsx test/run.ts unit` or `tsx test/run.ts e2e [filter...]`.
 *
 * The e2e tier starts one local control plane for the whole run, hands it to every test file
 * through `KUBECONFIG` (and `KUBELOOP_E2E_BIN` for the built kubectl), and stops it at the end.
 * Filters keep only files whose path contains one of them.
 */
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { startCluster } from "../src/testing/index.ts";

const root = dirname(fileURLToPath(import.meta.url));
const [tier = "unit", ...filters] = process.argv.slice(2);

function testFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".test.ts"))
    .map((f) => join(dir, f))
    .filter((f) => filters.length === 0 || filters.some((x) => relative(root, f).includes(x)))
    .sort();
}

function runNodeTest(files: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const concurrency = process.env.KUBELOOP_TEST_CONCURRENCY ?? "2";
  const args = [
    "--import",
    "tsx",
    "--test",
    "--test-reporter=spec",
    `--test-concurrency=${concurrency}`,
    ...files,
  ];
  const child = spawn(process.execPath, args, { stdio: "inherit", env });
  return new Promise((resolve) => child.on("exit", (code) => resolve(code ?? 1)));
}

async function main(): Promise<number> {
  const files = testFiles(join(root, tier));
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
    return await runNodeTest(files, {
      ...process.env,
      KUBECONFIG: cluster.kubeconfigPath,
      KUBELOOP_E2E_BIN: dirname(cluster.assets.kubectl),
    });
  } finally {
    await cluster.stop();
  }
}

process.exitCode = await main();
