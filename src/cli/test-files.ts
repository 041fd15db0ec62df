/**
 * Which files `kubeloop test` runs (and `test/run.ts` of this repository): apart from the command,
 * so that listing them loads nothing else.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

/** Every `*.test.ts` under `dir`, sorted. */
export function testFilesIn(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".test.ts") && !file.split("/").includes("node_modules"))
    .map((file) => join(dir, file))
    .sort();
}
