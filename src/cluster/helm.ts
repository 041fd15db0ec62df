/**
 * Helm, for the tests of the chart `kubeloop generate --helm` writes: built once per machine from
 * its Go module (`controlplane/helm`, at `versions.json`'s `helm`) into the kubeloop cache, beside
 * the control plane and in the same way, but under a cache key of its own so that neither rebuilds
 * the other.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { buildOne, cacheRoot, goVersion, type ProgressReporter, stderrReporter, withLock } from "./assets.ts";
import { controlplaneDir, helmComponent, ldflags, versions } from "./versions.ts";

/** The cache key of Helm's build: its version, the Go version, its wrapper module and build flags. */
function helmCacheKey(go: string): string {
  const hash = createHash("sha256");
  for (const file of ["go.mod", "go.sum"]) hash.update(readFileSync(join(controlplaneDir, "helm", file)));
  hash.update(`${helmComponent.pkg} ${ldflags(helmComponent)}\n`);
  return `helm-${versions.helm}_${go}_${hash.digest("hex").slice(0, 12)}`;
}

/**
 * The path of the `helm` binary, built into `<cache>/tools/<key>/helm` when missing (about 255 s
 * of CPU cold, with its modules downloaded: 15 minutes on a loaded 2-core machine), under a lock
 * so that concurrent callers build it once.
 * @param report - where progress lines go while building
 * @throws ToolchainError when Go is missing or too old; BuildError when `go build` fails
 */
export async function ensureHelm(report: ProgressReporter = stderrReporter): Promise<string> {
  const dir = join(cacheRoot(), "tools", helmCacheKey(await goVersion(process.env)));
  const helm = join(dir, helmComponent.name);
  if (existsSync(helm)) return helm;
  await withLock(join(dir, "build.lock"), report, async () => {
    if (!existsSync(helm)) await buildOne(helmComponent, dir, "1/1", report);
  });
  return helm;
}
