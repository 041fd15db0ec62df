/**
 * How the kit starts an operator process: one ESM bundle of the runner and the operator module,
 * built with esbuild once per operator module and kit process, or, when it cannot be built, the
 * runner's module under tsx. A process loading the bundle starts on 0.24 s of CPU instead of
 * 1.5–2 s compiling hundreds of modules through tsx (whose transpile cache is cold in each process,
 * its TMPDIR being its own); crash-safety, restarts and `verify --explore` fork hundreds of them
 * (measured 2026-11-28, issue 32 item 7).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { bundleOperator } from "../../../operator/index.ts";

/** The script an operator process runs and the Node flags it needs. */
export interface RunnerLaunch {
  readonly script: string;
  readonly execArgv: readonly string[];
}

/** Builds the bundle of the runner and the operator module at `operator`; returns its path. */
export type RunnerBundler = (operator: string, conditions: readonly string[]) => Promise<string>;

const here = fileURLToPath(import.meta.url);
const fromSource = here.endsWith(".ts");
const extension = fromSource ? ".ts" : ".js";
const runnerModule = join(dirname(here), `runner${extension}`);

/** The runner's module under tsx (from sources, this repository, with the source condition). */
export function tsxLaunch(): RunnerLaunch {
  const script = join(dirname(here), "..", `operator-main${extension}`);
  if (!fromSource) return { script, execArgv: [] };
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  return { script, execArgv: ["--conditions=kubeloop-source", "--import", tsx] };
}

/** The custom conditions (`--conditions`, `-C`) among Node's flags, as the kit's process resolves with. */
export function nodeConditions(flags: readonly string[]): string[] {
  const conditions: string[] = [];
  flags.forEach((flag, i) => {
    if (flag.startsWith("--conditions=")) conditions.push(flag.slice("--conditions=".length));
    else if ((flag === "--conditions" || flag === "-C") && flags[i + 1])
      conditions.push(flags[i + 1] as string);
  });
  return conditions;
}

/** This process's Node flags: its command line's and `NODE_OPTIONS`'. */
function processFlags(): string[] {
  return [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/).filter(Boolean)];
}

/**
 * Bundles a generated entry that imports the operator module statically and runs the runner, in a
 * temporary directory removed when this process exits. No `--enable-source-maps` for the process:
 * it costs each start-up what the bundle saves, and the kit reports the operator's log lines and
 * errors' messages; the bundle keeps the functions' names, and its source map is beside it.
 */
export const bundleRunner: RunnerBundler = async (operator, conditions) => {
  const dir = mkdtempSync(join(tmpdir(), "kubeloop-verify-bundle-"));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  const entry = join(dir, "entry.mjs");
  writeFileSync(
    entry,
    `import * as operator from ${JSON.stringify(operator)};\n` +
      `import { operatorOf } from ${JSON.stringify(join(dirname(here), `../../../operator/index${extension}`))};\n` +
      `import { runOperatorProcess } from ${JSON.stringify(runnerModule)};\n` +
      `await runOperatorProcess(async (path) => operatorOf(path, operator));\n`,
  );
  const bundle = await bundleOperator({ cwd: dir, entry, outfile: join(dir, "runner.mjs"), conditions });
  return bundle.outfile;
};

const launches = new Map<string, Promise<RunnerLaunch>>();

/**
 * How to start processes of the operator module at `operator`: its bundle, built once per module
 * (memoized), or, when esbuild is not installed or cannot bundle it, the runner under tsx, saying
 * why once through `report`: never a failure of the run.
 */
export function runnerLaunch(
  operator: string,
  report: (line: string) => void,
  bundle: RunnerBundler = bundleRunner,
): Promise<RunnerLaunch> {
  let launch = launches.get(operator);
  if (!launch) {
    launch = bundle(operator, nodeConditions(processFlags())).then(
      (script): RunnerLaunch => ({ script, execArgv: [] }),
      (err: unknown) => {
        const why = err instanceof Error ? err.message : String(err);
        report(`conformance: operator processes load under tsx, not bundled (slower to start): ${why}`);
        return tsxLaunch();
      },
    );
    launches.set(operator, launch);
  }
  return launch;
}
