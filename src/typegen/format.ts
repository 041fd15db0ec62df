/**
 * Formats generated modules with the project's own Biome (its `biome.json` applies), so that the
 * committed output passes `biome ci` and a regeneration compares byte for byte.
 */
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { TypegenError } from "./errors.ts";

/** `source` as `biome check --write` leaves it when saved at `path` (relative to `root`). */
export function formatWithBiome(source: string, path: string, root: string): string {
  const result = spawnSync(
    biomeBinary(root),
    ["check", "--write", "--colors=off", `--stdin-file-path=${path}`],
    {
      cwd: root,
      input: source,
      encoding: "utf8",
      maxBuffer: 64 << 20,
    },
  );
  if (result.status !== 0 || result.error) {
    throw new TypegenError(
      `biome could not format the generated ${path} (${result.error?.message ?? result.stderr.trim()})`,
      "install the dev dependencies (npm ci) and report the generated text as a bug",
      result.error,
    );
  }
  return result.stdout;
}

/** True when the project at `root` has Biome installed, so {@link formatWithBiome} can run. */
export function hasBiome(root: string): boolean {
  try {
    biomeBinary(root);
    return true;
  } catch {
    return false;
  }
}

function biomeBinary(root: string): string {
  const require = createRequire(join(root, "package.json"));
  return join(require.resolve("@biomejs/biome/package.json"), "..", "bin", "biome");
}
