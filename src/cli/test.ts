/**
 * `kubeloop test [files...]`: runs a project's tests with node:test (TypeScript through tsx), every
 * file against one cluster: a local control plane started for the run and stopped after it, or
 * the existing cluster `$KUBELOOP_TEST_KUBECONFIG` names. Tests reach it through `startOperator`
 * of `kubeloop/testing`, which reads that variable. When the project's operator declares
 * conversions, this process serves them for the whole run (a CRD's conversion is cluster-wide:
 * see `serveConversions`), and the tests' operators serve their admission webhooks only.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { Command, Option } from "commander";
import { type Cluster, startCluster } from "../cluster/index.ts";
import { KubeloopError } from "../errors/index.ts";
import { loadOperator } from "../operator/index.ts";
import { TEST_KUBECONFIG_ENV, whileServingConversions } from "../testing/index.ts";
import { nodeTestArgs, testFilesIn } from "./test-files.ts";

/** Runs node:test on `files` with `env`; resolves with its exit code. */
function nodeTest(files: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const child = spawn(process.execPath, nodeTestArgs(files), { stdio: "inherit", env });
  return new Promise((resolve) => child.on("exit", (code, signal) => resolve(code ?? (signal ? 130 : 1))));
}

async function runTests(files: string[], opts: { operator: string }): Promise<void> {
  const selected = files.length > 0 ? files : testFilesIn("test");
  if (selected.length === 0) {
    throw new KubeloopError("KL_NO_TESTS", "no test files: name them, or put `*.test.ts` files under test/.");
  }
  const existing = process.env[TEST_KUBECONFIG_ENV];
  const cluster: Cluster | undefined = existing ? undefined : await startCluster();
  const kubeconfig = existing ?? (cluster as Cluster).kubeconfigPath;
  const stopCluster = () => void cluster?.stop().finally(() => process.exit(130));
  process.once("SIGINT", stopCluster);
  process.once("SIGTERM", stopCluster);
  try {
    const operators = existsSync(opts.operator) ? [await loadOperator(opts.operator)] : [];
    process.exitCode = await whileServingConversions(kubeconfig, operators, (conversions) =>
      nodeTest(selected, { ...process.env, ...conversions, [TEST_KUBECONFIG_ENV]: kubeconfig }),
    );
  } finally {
    process.off("SIGINT", stopCluster);
    process.off("SIGTERM", stopCluster);
    await cluster?.stop();
  }
}

/** The `test` command. */
export function testCommand(): Command {
  return new Command("test")
    .description(
      `run the project's tests (test/**/*.test.ts, or the files named) against one cluster: a local one started for the run, or the one $${TEST_KUBECONFIG_ENV} names`,
    )
    .argument("[files...]", "test files (default: every *.test.ts under test/)")
    .addOption(
      new Option(
        "--operator <file>",
        "the operator module whose conversion webhooks the run serves, when it exists",
      ).default("src/operator.ts"),
    )
    .action((files: string[], opts: { operator: string }) => runTests(files, opts));
}
