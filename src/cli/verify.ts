/**
 * `kubeloop verify`: runs the conformance kit (`kubeloop/testing`) on the project's operator — on a
 * local control plane it starts, behind the fault-injecting proxy — and prints a table: each check,
 * its result, the time to converge or repair, and details; then every failure in full. Exits 1 when
 * a check fails. With `--explore`, explores the operator's state space instead (see
 * `testing/conformance/explore`) and exits 1 on a violation, printing the command that replays it.
 */
import { Command } from "commander";
import {
  checkNames,
  formatReport,
  loadConformanceSpec,
  runConformance,
  selectChecks,
} from "../testing/conformance/index.ts";
import { exploreFlags, exploreOptions, verifyExplore } from "./verify-explore.ts";

interface VerifyOptions {
  spec: string;
  checks?: string;
  kubeconfig?: string;
  quiet?: boolean;
  explore?: boolean;
}

async function verify(opts: VerifyOptions & Parameters<typeof exploreOptions>[0]): Promise<void> {
  if (opts.explore) return verifyExplore(opts.spec, exploreOptions(opts), opts.kubeconfig, opts.quiet);
  const checks = opts.checks
    ?.split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  const selected = selectChecks(checks).map((check) => check.name);
  const spec = await loadConformanceSpec(opts.spec);
  const report = await runConformance(spec, {
    checks: selected,
    kubeconfig: opts.kubeconfig,
    report: opts.quiet ? undefined : (line) => process.stderr.write(`kubeloop verify: ${line}\n`),
  });
  process.stdout.write(`${formatReport(report)}\n`);
  if (!report.ok) process.exitCode = 1;
}

/** The `verify` command. */
export function verifyCommand(): Command {
  const command = new Command("verify")
    .description(
      "prove the project's operator honours the principles under faults: run the conformance checks on a local cluster and print a table",
    )
    .option(
      "--spec <file>",
      "the conformance spec (default export of defineConformance)",
      "test/conformance.ts",
    )
    .option("--checks <names>", `comma-separated checks to run (default: all): ${checkNames.join(", ")}`)
    .option(
      "--kubeconfig <file>",
      "use this cluster instead of starting one (client-certificate credentials; apiserver restart and etcd compaction are then simulated at the proxy)",
    )
    .option("--quiet", "print only the report, no progress lines");
  return exploreFlags(command).action(verify);
}
