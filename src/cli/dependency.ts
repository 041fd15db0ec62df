/**
 * Which `kubeloop` a project scaffolded by `kubeloop init` depends on: the copy of kubeloop that
 * ran `init`, told from where that copy lives.
 *
 * - Outside any `node_modules` (a checkout, or an unpacked package): `file:<its directory>`.
 * - Installed by npm from a tarball (`npm install ./kubeloop-0.1.0.tgz`, `npx ./kubeloop-0.1.0.tgz`):
 *   `file:<the tarball>`, read from npm's record of the install (`node_modules/.package-lock.json`);
 *   `init` copies it into the project ({@link vendored}), so `npm ci` works in CI and in the image build.
 * - Installed by npm from a registry: `^<version>`. kubeloop is not published yet; this is the
 *   case for when it is.
 * - Installed some other way (a git URL): the spec npm recorded; no record at all (pnpm, yarn):
 *   the installed version, exactly.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
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

/**
 * `spec`, with a tarball it names (`file:/downloads/kubeloop-0.1.0.tgz`, `./kubeloop-0.1.0.tgz`)
 * copied into `projectDir/vendor/` and named there (`file:vendor/kubeloop-0.1.0.tgz`): a path
 * outside the project exists on this machine only, so `npm ci` in CI or in `docker build` would fail.
 * A relative path is taken from the working directory, where the user typed it. Other specs are
 * returned as they are.
 */
export function vendored(spec: string, projectDir: string): string {
  const path = spec.startsWith("file:") ? spec.slice("file:".length) : spec;
  if (!/\.(tgz|tar\.gz)$/.test(path) || /^[a-z+]+:/.test(path)) return spec;
  const vendor = join(projectDir, "vendor");
  mkdirSync(vendor, { recursive: true });
  copyFileSync(resolve(path), join(vendor, basename(path)));
  return `file:vendor/${basename(path)}`;
}
