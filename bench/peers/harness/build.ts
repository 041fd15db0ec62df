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

/**
 * Builds kubeloop (`npm run build`) and compiles the TypeScript contenders into `builtDir`;
 * returns the entry file of each.
 */
export async function buildContenders(
  log: (line: string) => void,
): Promise<Partial<Record<ContenderName, string>>> {
  log("building kubeloop into dist/ (npm run build) and compiling the TypeScript contenders");
  execFileSync("npm", ["run", "--silent", "build"], { cwd: repoRoot, stdio: "inherit" });
  mkdirSync(builtDir, { recursive: true });
  const entries: Partial<Record<ContenderName, string>> = {};
  for (const [name, source] of Object.entries(sources) as [ContenderName, string][]) {
    const outfile = join(builtDir, `${name}.mjs`);
    await build({
      entryPoints: [join(peersDir, source)],
      outfile,
      bundle: true,
      packages: "external",
      platform: "node",
      format: "esm",
      target: `node${process.versions.node}`,
      plugins: [kubeloopFromDist],
      logLevel: "warning",
    });
    entries[name] = outfile;
  }
  return entries;
}
