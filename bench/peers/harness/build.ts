/**
 * The Node contenders as users deploy them, not as the tests run them: kubeloop from its built
 * JavaScript (`npm run build` into dist/), and each TypeScript contender compiled ahead of time to
 * one JavaScript file, with the benchmark's own helpers bundled in and every import of kubeloop
 * pointing at dist/. Packages stay external, loaded by Node as in a deployed operator. No contender
 * runs through tsx, so none pays for compiling TypeScript at start-up.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { build, type Plugin } from "esbuild";
import type { ContenderName } from "./contenders.ts";
import { peersDir, repoRoot } from "./paths.ts";

/** Where the compiled contenders go (ignored by git, rebuilt by every run). */
export const builtDir = join(peersDir, ".built");

const sources: Partial<Record<ContenderName, string>> = {
  kubeloop: "kubeloop/operator.ts",
  floor: "floor/floor.ts",
};

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
 * Builds kubeloop (`npm run build`) and compiles the TypeScript contenders into `builtDir`;
 * returns the entry file of each.
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
  return entries;
}
