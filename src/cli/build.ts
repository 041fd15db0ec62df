/**
 * `kubeloop build`: bundles an operator project's entry point and everything it imports into one
 * ESM file for `node` ({@link bundleOperator} of `kubeloop/operator`), what the generated
 * Dockerfile runs.
 */
import { relative } from "node:path";
import { Command } from "commander";
import { BUNDLE_TARGET, bundleOperator, DEFAULT_BUNDLE, DEFAULT_ENTRY } from "../operator/index.ts";

async function build(opts: { entry: string; outfile: string }): Promise<void> {
  const bundle = await bundleOperator(opts);
  for (const warning of bundle.warnings) process.stderr.write(`warning: ${warning}\n`);
  const out = relative(process.cwd(), bundle.outfile);
  process.stdout.write(
    `Wrote ${out} and ${out}.map; run it with: node ${out} (--enable-source-maps for TypeScript stack traces, at some start-up cost)\n`,
  );
}

/** The `build` command. */
export function buildCommand(): Command {
  return new Command("build")
    .description(
      `bundle the operator's entry point and every package it imports into one ESM file (esbuild, ${BUNDLE_TARGET}) with its source map, what only import() loads into chunks beside it: what the generated Dockerfile runs`,
    )
    .option("--entry <file>", "the file that starts the operator", DEFAULT_ENTRY)
    .option("--outfile <file>", "the bundle to write (its source map beside it)", DEFAULT_BUNDLE)
    .action(build);
}
