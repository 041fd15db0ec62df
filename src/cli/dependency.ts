/**
 * Which `kubeloop` a project scaffolded by `kubeloop init` depends on: the copy of kubeloop that
 * ran `init`, told from where that copy lives.
 *
 * - Outside any `node_modules` (a checkout, or an unpacked package): `file:<its directory>`.
 * - Installed by npm from a tarball (`npm install ./kubeloop-0.1.0.tgz`, `npx ./kubeloop-0.1.0.tgz`):
 *   `file:<the tarball>`, read from npm's record of the install (`node_modules/.package-lock.json`).
 * - Installed by npm from a registry: `^<version>`. kubeloop is not published yet; this is the
 *   case for when it is.
 * - Installed some other way (a git URL): the spec npm recorded; no record at all (pnpm, yarn):
 *   the installed version, exactly.
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";

/** What npm's hidden lockfile records of one installed package. */
interface LockEntry {
  resolved?: string;
}

/**
 * The npm spec of the kubeloop dependency for a project scaffolded by the kubeloop package whose
 * root directory is `packageRoot`.
 */
export function kubeloopDependency(packageRoot: string): string {
  const root = resolve(packageRoot);
  const modules = dirname(root);
  if (basename(modules) !== "node_modules") return `file:${root}`;
  const version = packageVersion(root);
  const resolved = installRecord(root)?.resolved;
  if (!resolved) return version;
  if (/^https?:/.test(resolved)) return `^${version}`;
  if (!resolved.startsWith("file:")) return resolved;
  const tarball = resolve(dirname(modules), resolved.slice("file:".length));
  return existsSync(tarball) ? `file:${tarball}` : version;
}

/** The `version` in the package.json of the package at `root`. */
export function packageVersion(root: string): string {
  return (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
}

/** npm's record of how the package at `root` (inside a `node_modules`) was installed, if any. */
function installRecord(root: string): LockEntry | undefined {
  const modules = dirname(root);
  const lockfile = join(modules, ".package-lock.json");
  if (!existsSync(lockfile)) return undefined;
  const lock = JSON.parse(readFileSync(lockfile, "utf8")) as { packages?: Record<string, LockEntry> };
  return lock.packages?.[relative(dirname(modules), root).split(sep).join("/")];
}
