/**
 * The real Artillery CLI, from the npm registry, for the end-to-end test that runs a worker's
 * command line. Installed once per machine into kubeloop's cache (outside the repository), at the
 * version the operator's default image ships; its browser engine is not needed and not fetched.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { cacheRoot } from "../../../src/cluster/index.ts";

const run = promisify(execFile);

/** The Artillery release the tests run; it matches the operator's default worker image. */
export const ARTILLERY_VERSION = "2.0.23";

/** Path of the `artillery` executable, installing it into the cache first if missing (about a minute). */
export async function ensureArtillery(): Promise<string> {
  const prefix = join(cacheRoot(), `artillery-${ARTILLERY_VERSION}`);
  const bin = join(prefix, "node_modules", ".bin", "artillery");
  if (existsSync(bin)) return bin;
  mkdirSync(prefix, { recursive: true });
  await run(
    "npm",
    [
      "install",
      "--no-save",
      "--no-audit",
      "--no-fund",
      "--ignore-scripts",
      "--prefix",
      prefix,
      `artillery@${ARTILLERY_VERSION}`,
    ],
    {
      env: { ...process.env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1", npm_config_loglevel: "error" },
      timeout: 600_000,
    },
  );
  return bin;
}
