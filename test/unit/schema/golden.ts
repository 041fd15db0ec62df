/** Golden-file comparison; set KUBELOOP_UPDATE_GOLDEN=1 to rewrite the files from the current output. */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Asserts that `actual` equals `golden/<name>` exactly (or rewrites the file when asked to). */
export function assertGolden(name: string, actual: string): void {
  const path = fileURLToPath(new URL(`./golden/${name}`, import.meta.url));
  if (process.env.KUBELOOP_UPDATE_GOLDEN === "1") writeFileSync(path, actual);
  assert.equal(
    actual,
    readFileSync(path, "utf8"),
    `${name} differs; rerun with KUBELOOP_UPDATE_GOLDEN=1 if intended`,
  );
}
