/**
 * `kubeloop init <dir>`: scaffolds an operator project — a kind, its controller, a validating
 * webhook, the operator declaration, end-to-end tests on the local control plane, and a README —
 * from `templates/operator`, with the names filled in.
 */
import { cpSync, existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Command } from "commander";
import { KubeloopError } from "../errors/index.ts";
import { kubeloopDependency, vendored } from "./dependency.ts";

const packageRoot = resolve(fileURLToPath(import.meta.url), "../../..");
const templateDir = join(packageRoot, "templates", "operator");

/**
 * Template files stored under another name: npm never packs a `.gitignore` (it would be lost from
 * kubeloop's own tarball), so the template holds `gitignore`.
 */
const renamed: Record<string, string> = { gitignore: ".gitignore" };

/** What `init` fills into the template. */
export interface InitOptions {
  /** Project and operator name (DNS label). Default: the directory's name. */
  name?: string;
  /** The custom resource's kind (PascalCase). Default `Greeting`. */
  kind?: string;
  /** API group (DNS subdomain). Default `<name>.example.com`. */
  group?: string;
  /**
   * npm spec of the kubeloop dependency. Default: the kubeloop running `init` — `file:<checkout>`
   * from a checkout, its tarball when installed from one, `^<version>` when installed from a
   * registry (see `kubeloopDependency`). A tarball is copied into the project's `vendor/` and
   * depended on there (`file:vendor/kubeloop-0.1.0.tgz`, see `vendored`).
   */
  kubeloop?: string;
}

function invalid(what: string, value: string, rule: string): never {
  throw new KubeloopError("KL_INIT_INVALID", `invalid ${what} "${value}": ${rule}`);
}

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) =>
    statSync(join(dir, f)).isFile(),
  );
}

/** Writes a new operator project into `dir` (which must not exist or be empty). Returns the files written. */
export function initProject(dir: string, options: InitOptions = {}): string[] {
  const target = resolve(dir);
  if (existsSync(target) && readdirSync(target).length > 0) {
    throw new KubeloopError(
      "KL_INIT_NOT_EMPTY",
      `${target} is not empty; pick a new directory for the project`,
    );
  }
  const name = options.name ?? basename(target).toLowerCase();
  if (!/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/.test(name))
    invalid("name", name, "use lower-case letters, digits and '-' (pass --name)");
  const kind = options.kind ?? "Greeting";
  if (!/^[A-Z][A-Za-z0-9]{0,62}$/.test(kind)) invalid("kind", kind, "use PascalCase, e.g. Greeting");
  const group = options.group ?? `${name}.example.com`;
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/.test(group))
    invalid("group", group, "use a DNS subdomain such as example.com");
  cpSync(templateDir, target, { recursive: true });
  for (const [from, to] of Object.entries(renamed)) renameSync(join(target, from), join(target, to));
  const written = files(target);
  const values: Record<string, string> = {
    __NAME__: name,
    __KIND__: kind,
    __GROUP__: group,
    __KUBELOOP__: vendored(options.kubeloop ?? kubeloopDependency(packageRoot), target),
  };
  for (const file of written) {
    const path = join(target, file);
    const text = readFileSync(path, "utf8").replace(/__(NAME|KIND|GROUP|KUBELOOP)__/g, (m) => values[m] ?? m);
    writeFileSync(path, text);
  }
  reviewInstallScripts(join(target, "package.json"), values.__KUBELOOP__ ?? "");
  return files(target).map((f) => relative(process.cwd(), join(target, f)));
}

/**
 * Records in the project's `allowScripts` (npm 11: install scripts of dependencies run only when
 * approved there, and every install lists the others) that kubeloop's `prepare` is not run when it
 * is a directory (a checkout): it builds that directory's dist/, which the `kubeloop` that ran
 * `init` was already running from. npm keys a non-registry source by its spec. The template itself
 * approves esbuild's postinstall (through tsx), which checks its platform binary.
 */
function reviewInstallScripts(manifestPath: string, kubeloopSpec: string): void {
  if (
    !kubeloopSpec.startsWith("file:") ||
    !statSync(kubeloopSpec.slice("file:".length), { throwIfNoEntry: false })?.isDirectory()
  )
    return;
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as {
    allowScripts?: Record<string, boolean>;
  };
  manifest.allowScripts = { ...manifest.allowScripts, [kubeloopSpec]: false };
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
}

/** The `init` command. */
export function initCommand(): Command {
  return new Command("init")
    .description(
      "scaffold a new operator project: a kind, a controller, a validating webhook, end-to-end tests on the local cluster, a README",
    )
    .argument("<dir>", "directory to create")
    .option("--name <name>", "operator name (default: the directory name)")
    .option("--kind <Kind>", "custom resource kind", "Greeting")
    .option("--group <group>", "API group (default: <name>.example.com)")
    .option(
      "--kubeloop <spec>",
      "npm spec of the kubeloop dependency (default: this kubeloop: its checkout, tarball or version); a tarball is copied into the project's vendor/",
    )
    .action((dir: string, opts: InitOptions) => {
      const written = initProject(dir, opts);
      process.stdout.write(
        `Created ${written.length} files in ${dir}:\n${written.map((f) => `  ${f}`).join("\n")}\n\n`,
      );
      process.stdout.write(`Next:\n  cd ${dir}\n  npm install\n  npm test\n`);
    });
}
