/**
 * The Node contenders as users deploy them, not as the tests run them: the kubeloop contender
 * bundled by `kubeloop build` into one file with kubeloop and every package, as the generated
 * Dockerfile ships it; the other TypeScript contenders (and `kubeloop-unbundled`, the kubeloop
 * contender as operators ran before `kubeloop build`) compiled ahead of time to one JavaScript
 * file, with the benchmark's own helpers bundled in and every import of kubeloop pointing at its
 * built JavaScript (`npm run build` into dist/), packages left for Node to load from node_modules.
 * No contender runs through tsx, so none pays for compiling TypeScript at start-up.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { build, type Plugin } from "esbuild";
import { bundleOperator } from "../../../src/operator/index.ts";
import type { ContenderName } from "./contenders.ts";
import { peersDir, repoRoot } from "./paths.ts";

/** Where the compiled contenders go (ignored by git, rebuilt by every run). */
export const builtDir = join(peersDir, ".built");

const sources: Partial<Record<ContenderName, string>> = {
  "kubeloop-unbundled": "kubeloop/operator.ts",
  floor: "floor/floor.ts",
};

/** The contenders bundled as shipped (`kubeloop build`). */
const bundled: Partial<Record<ContenderName, string>> = { kubeloop: "kubeloop/operator.ts" };

/** Rewrites every import of kubeloop's sources to the same module in dist/, left for Node to load. */
const kubeloopFromDist: Plugin = {
  name: "kubeloop-from-dist",
  setup(b) {
    const src = join(repoRoot, "src");
    b.onResolve({ filter: /^\.\.?\// }, (args) => {
      const path = resolve(args.resolveDir, args.path);
      if (!path.startsWith(`${src}/`)) return undefined;
      const built = join(repoRoot, "dist", relative(src, path)).replace(/\.ts$/, ".js");
      return { path: built, external: true };
    });
  },
};

/** Builds kubeloop's dist/ (`npm run build`). */
export function buildKubeloop(log: (line: string) => void): void {
  log("building kubeloop into dist/ (npm run build)");
  execFileSync("npm", ["run", "--silent", "build"], { cwd: repoRoot, stdio: "inherit" });
}

/**
 * Compiles the TypeScript program `source` (absolute) into `builtDir/<name>.mjs`, kubeloop's
 * sources pointing at dist/ and packages left external; returns the file.
 */
export async function compileEntry(source: string, name: string): Promise<string> {
  mkdirSync(builtDir, { recursive: true });
  const outfile = join(builtDir, `${name}.mjs`);
  await build({
    entryPoints: [source],
    outfile,
    bundle: true,
    packages: "external",
    platform: "node",
    format: "esm",
    target: `node${process.versions.node}`,
    plugins: [kubeloopFromDist],
    logLevel: "warning",
  });
  return outfile;
}

/**
 * Builds kubeloop (`npm run build`), compiles the TypeScript contenders and bundles the shipped
 * ones into `builtDir`; returns the entry file of each.
 */
export async function buildContenders(
  log: (line: string) => void,
): Promise<Partial<Record<ContenderName, string>>> {
  buildKubeloop(log);
  log("compiling the TypeScript contenders");
  const entries: Partial<Record<ContenderName, string>> = {};
  for (const [name, source] of Object.entries(sources) as [ContenderName, string][]) {
    entries[name] = await compileEntry(join(peersDir, source), name);
  }
  log("bundling the kubeloop contender (kubeloop build)");
  for (const [name, source] of Object.entries(bundled) as [ContenderName, string][]) {
    const bundle = await bundleOperator({
      cwd: peersDir,
      entry: source,
      outfile: join(builtDir, `${name}.mjs`),
    });
    entries[name] = bundle.outfile;
  }
  return entries;
}
