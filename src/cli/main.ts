/**
 * The `kubeloop` command. Each command group lives in its own file and registers itself on the
 * program here; errors a user can cause are printed as one message (cause and fix) with exit 1.
 */
import { Command } from "commander";
import { KubeloopError } from "../errors/index.ts";
import { buildCommand } from "./build.ts";
import { clusterCommand } from "./cluster.ts";
import { describeCommand } from "./describe.ts";
import { importCommand } from "./import.ts";
import { initCommand } from "./init.ts";
import { generateCommand, installCommand, migrateCommand, runCommand } from "./project.ts";
import { testCommand } from "./test.ts";
import { verifyCommand } from "./verify.ts";

/** Builds the command tree. */
export function program(): Command {
  return new Command("kubeloop")
    .description("Kubernetes operators in TypeScript: scaffold, generate, run, and a local control plane")
    .showHelpAfterError()
    .addCommand(initCommand())
    .addCommand(generateCommand())
    .addCommand(importCommand())
    .addCommand(installCommand())
    .addCommand(migrateCommand())
    .addCommand(runCommand())
    .addCommand(buildCommand())
    .addCommand(testCommand())
    .addCommand(describeCommand())
    .addCommand(clusterCommand())
    .addCommand(verifyCommand());
}

/** Runs the CLI with `argv` (defaults to the process arguments). */
export async function main(argv = process.argv): Promise<void> {
  try {
    await program().parseAsync(argv);
  } catch (err) {
    if (!(err instanceof KubeloopError)) throw err;
    process.stderr.write(`kubeloop: ${err.message}\n`);
    process.exitCode = 1;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
