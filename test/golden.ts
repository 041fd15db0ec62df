/** Golden-file comparison; set KUBELOOP_UPDATE_GOLDEN=1 to rewrite the files from the current output. */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname } from "node:path";
import { fileURLToPath } from "node:url";

/** Asserts that `actual` equals the file at `golden` exactly (or rewrites the file when asked to). */
export function assertGolden(golden: URL, actual: string): void {
  const path = fileURLToPath(golden);
  if (process.env.KUBELOOP_UPDATE_GOLDEN === "1") {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
  }
  assert.equal(
    actual,
    readFileSync(path, "utf8"),
    `${basename(path)} differs; rerun with KUBELOOP_UPDATE_GOLDEN=1 if intended`,
  );
}
