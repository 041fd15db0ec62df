/**
 * `kubeloop verify --explore`: the flags of exploration and the run — trials planned from a seed,
 * spec changes from the primary kind's schema, one perturbation per trial (the operator killed
 * after its k-th write, restarted on a stale view, or two changes left unobserved), failing
 * sequences shrunk and printed with the command that replays them. Exits 1 on a violation.
 */
import type { Command } from "commander";
import {
  ConformanceError,
  type ExploreOptions,
  formatExploreReport,
  loadConformanceSpec,
  runExploration,
} from "../testing/conformance/index.ts";

/** The raw flags, as commander hands them over. */
interface ExploreFlags {
  trials?: string;
  seed?: string;
  budget?: string;
  trial?: string;
  steps?: string;
}

/** Adds the exploration flags to the verify command. */
export function exploreFlags(command: Command): Command {
  return command
    .option(
      "--explore",
      "explore the state space: generated spec changes, kills mid-reconcile, stale views, unobserved changes, oracles per trial",
    )
    .option("--trials <n>", "with --explore: how many trials at most (default 20)")
    .option("--seed <n>", "with --explore: the run's seed (default 1); every trial's plan derives from it")
    .option(
      "--budget <duration>",
      "with --explore: stop starting trials after this long, e.g. 90s, 10m (default 10m)",
    )
    .option(
      "--trial <n>",
      "with --explore: replay this trial of the seed only (as a report's replay command does)",
    )
    .option("--steps <list>", "with --trial: the trial's generated steps to keep, e.g. 0,3, or none");
}

function whole(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new ConformanceError(`--${name} must be a whole number >= 0, not "${value}"`);
  return n;
}

/** `90s`, `10m`, `1h` in milliseconds. */
export function parseBudget(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+(?:\.\d+)?)(s|m|h)$/.exec(value.trim());
  if (!match) throw new ConformanceError(`--budget must be a duration like 90s, 10m or 1h, not "${value}"`);
  return Number(match[1]) * { s: 1_000, m: 60_000, h: 3_600_000 }[match[2] as "s" | "m" | "h"];
}

/** The exploration options of the flags; throws {@link ConformanceError} on a malformed one. */
export function exploreOptions(flags: ExploreFlags): ExploreOptions {
  const steps =
    flags.steps === undefined
      ? undefined
      : flags.steps === "none"
        ? []
        : flags.steps.split(",").map((s) => whole("steps", s) ?? 0);
  if (steps && flags.trial === undefined)
    throw new ConformanceError("--steps needs --trial: the trial whose steps to keep");
  return {
    trials: whole("trials", flags.trials),
    seed: whole("seed", flags.seed),
    budgetMs: parseBudget(flags.budget),
    trial: whole("trial", flags.trial),
    steps,
  };
}

/** Runs the exploration and prints its report; exit code 1 on a violation. */
export async function verifyExplore(
  specPath: string,
  options: ExploreOptions,
  kubeconfig: string | undefined,
  quiet: boolean | undefined,
): Promise<void> {
  const spec = await loadConformanceSpec(specPath);
  const report = await runExploration(spec, {
    ...options,
    kubeconfig,
    specPath,
    report: quiet ? undefined : (line) => process.stderr.write(`kubeloop verify: ${line}\n`),
  });
  process.stdout.write(`${formatExploreReport(report)}\n`);
  if (!report.ok) process.exitCode = 1;
}
