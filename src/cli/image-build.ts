/**
 * What `docker build` needs from an operator project besides its sources: the packages it installs
 * from its own tree (`file:vendor/…`), copied before `npm ci`, and a warning naming the fix for
 * each it installs from outside (a kubeloop checkout, a tarball elsewhere), which the build
 * context cannot reach.
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, isAbsolute, join, relative, resolve } from "node:path";

/** The local packages of a project, as the image build sees them. */
export interface LocalPackages {
  /** `file:` packages inside the project, relative to it: the Dockerfile copies them. */
  readonly inside: string[];
  /** One sentence (cause and fix) per `file:` package outside the project. */
  readonly unreachable: string[];
}

/** Reads `package.json` of `projectDir` and sorts its `file:` dependencies (dev ones too: the build stage installs them). */
export function localPackagesOf(projectDir: string): LocalPackages {
  const manifestPath = join(projectDir, "package.json");
  if (!existsSync(manifestPath)) return { inside: [], unreachable: [] };
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as Record<string, Record<string, string>>;
  const specs = { ...manifest.dependencies, ...manifest.devDependencies };
  const inside: string[] = [];
  const unreachable: string[] = [];
  for (const [name, spec] of Object.entries(specs)) {
    if (!spec.startsWith("file:")) continue;
    const path = resolve(projectDir, spec.slice("file:".length));
    const fromProject = relative(projectDir, path);
    if (fromProject.startsWith("..") || isAbsolute(fromProject))
      unreachable.push(unreachableMessage(name, path));
    else inside.push(fromProject);
  }
  return { inside, unreachable };
}

function unreachableMessage(name: string, path: string): string {
  const tarball = `${name}-${versionAt(path) ?? "<version>"}.tgz`;
  const source = path.endsWith(".tgz") ? basename(path) : tarball;
  return (
    `${name} is installed from ${path}, outside the project, which \`docker build\` cannot reach. ` +
    `Vendor it into the project: \`mkdir -p vendor && npm pack ${path} --pack-destination vendor && npm install ./vendor/${source}\`, ` +
    "then run `kubeloop generate` again (or depend on a published version)."
  );
}

/** The version in the package.json of a package directory, if it is one. */
function versionAt(path: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(path, "package.json"), "utf8")) as { version?: string }).version;
  } catch {
    return undefined;
  }
}
