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

/**
 * Node's arguments to run test `files` with node:test through tsx, `options` (a reporter, a
 * concurrency) before the files. `--enable-source-maps`: node:test maps the locations it reports
 * (TAP's `location`, the spec reporter's "test at") through tsx's source maps only with it; without
 * it they point into tsx's output (`:1:353`).
 */
export function nodeTestArgs(files: readonly string[], options: readonly string[] = []): string[] {
  return ["--enable-source-maps", "--import", "tsx", "--test", ...options, ...files];
}
