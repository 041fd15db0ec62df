/**
 * Bundling an operator (what `kubeloop build` runs): bundles an operator project's entry point and everything it imports (kubeloop
 * and the other packages too) into one ESM file for `node`, with its source map; what only an
 * `import()` loads (the tracing exporter, the webhook certificates' encoder) goes to chunks beside
 * it, read when first used. An operator then starts by loading one file instead of resolving and
 * compiling hundreds of modules, and its image needs no `node_modules` (see `dockerfile` of
 * `kubeloop/generate`).
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { basename, dirname, extname, relative, resolve } from "node:path";
import type { BuildFailure, Message, OutputFile, Plugin } from "esbuild";
import { KubeloopError } from "../errors/index.ts";

/**
 * An operator could not be bundled: `KL_BUILD_ENTRY_MISSING` (no entry file),
 * `KL_BUILD_ESBUILD_MISSING` (esbuild not installed) or `KL_BUILD_FAILED` (esbuild's errors, each
 * with its file:line).
 */
export class OperatorBuildError extends KubeloopError {}

/** The Node.js the bundle targets: the LTS the generated Dockerfile's `node:24-slim` runs. */
export const BUNDLE_TARGET = "node24";

/** The entry point `kubeloop build` bundles by default: the template's `src/main.ts`. */
export const DEFAULT_ENTRY = "src/main.ts";

/** Where `kubeloop build` writes the bundle by default (its source map beside it, `.map` added). */
export const DEFAULT_BUNDLE = "dist/operator.mjs";

/** The esbuild version kubeloop is tested with, named in the fix when esbuild is missing. */
const ESBUILD_VERSION = "0.28.2";

/**
 * CommonJS packages in the bundle (undici, pino, prom-client) call `require` for Node's built-in
 * modules; an ES module has none, so the bundle makes one first.
 */
const requireBanner =
  'import { createRequire as __klCreateRequire } from "node:module";\nconst require = __klCreateRequire(import.meta.url);';

/** Marks the resolutions {@link optionalPackages} makes itself, so that it does not see them again. */
const ownResolve = Symbol("kubeloop-optional-packages");

/**
 * A package loaded with `import()` that the project does not install stays an `import()` in the
 * bundle, failing when it runs as it did before bundling: kubeloop loads its optional pieces (the
 * OpenTelemetry exporter, the packages of `optionalPeerDependencies`) this way and says which to
 * install. Static imports of a missing package still fail the build.
 */
const optionalPackages: Plugin = {
  name: "kubeloop-optional-packages",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.kind !== "dynamic-import" || args.pluginData === ownResolve) return undefined;
      const { kind, importer, resolveDir } = args;
      const found = await build.resolve(args.path, { kind, importer, resolveDir, pluginData: ownResolve });
      if (found.errors.length > 0) return { path: args.path, external: true };
      return {
        path: found.path,
        external: found.external,
        namespace: found.namespace,
        sideEffects: found.sideEffects,
      };
    });
  },
};

/** The namespace of the modules {@link builtinsByRequire} makes. */
const BUILTIN_NAMESPACE = "kubeloop-builtin";

/**
 * Node's built-in modules loaded with the bundle's `require` instead of `import`. On Node 24 an ES
 * import of `node:http` reads every export of the module, among them the lazy `WebSocket`, which
 * loads Node's own copy of undici and the web streams: +13 MiB of RSS in a process that loads
 * nothing else (`import { createServer } from "node:http"` against `require`), 2 MiB in the bench's
 * operator, which loads the web streams anyway. Through `require` an export is read where the code
 * reads it; the module object is the same either way.
 */
const builtinsByRequire: Plugin = {
  name: "kubeloop-builtins-by-require",
  setup(build) {
    build.onResolve({ filter: /^[a-z_:/]+$/ }, ({ path, kind }) =>
      kind === "import-statement" && isBuiltin(path) ? { path, namespace: BUILTIN_NAMESPACE } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: BUILTIN_NAMESPACE }, ({ path }) => ({
      contents: `module.exports = require(${JSON.stringify(path)});`,
      loader: "js",
    }));
  },
};

/** Options of {@link bundleOperator}. */
export interface BundleOptions {
  /** The entry point, relative to `cwd`; default {@link DEFAULT_ENTRY}. */
  readonly entry?: string;
  /** The bundle to write, relative to `cwd`; default {@link DEFAULT_BUNDLE}. */
  readonly outfile?: string;
  /** The project's root; default the current directory. */
  readonly cwd?: string;
  /**
   * Custom conditions for packages' `exports`, as Node's `--conditions` (the conformance kit and the
   * e2e fixtures pass `kubeloop-source` in this repository); default none, as `kubeloop build`.
   */
  readonly conditions?: readonly string[];
}

/** What {@link bundleOperator} wrote: absolute paths. */
export interface Bundle {
  readonly outfile: string;
  readonly sourcemap: string;
  /** The directory of the chunks the bundle loads on first use: `<outfile without extension>.chunks`. */
  readonly chunks: string;
  /** esbuild's warnings, as `file:line:column: text`. */
  readonly warnings: string[];
}

/**
 * Bundles `entry` into one ESM file for Node (platform node, target {@link BUNDLE_TARGET}) with a
 * linked source map, and what it only loads with `import()` into chunks beside it (the chunk
 * directory is written anew). Throws {@link OperatorBuildError} when the entry is missing, esbuild
 * is not installed, or esbuild reports errors.
 */
export async function bundleOperator(options: BundleOptions = {}): Promise<Bundle> {
  const cwd = options.cwd ?? process.cwd();
  const entry = resolve(cwd, options.entry ?? DEFAULT_ENTRY);
  const outfile = resolve(cwd, options.outfile ?? DEFAULT_BUNDLE);
  if (!existsSync(entry))
    throw new OperatorBuildError(
      "KL_BUILD_ENTRY_MISSING",
      `The entry point ${entry} does not exist. Give the file that starts the operator with --entry ` +
        "(a project from `kubeloop init` has src/main.ts).",
    );
  const esbuild = await loadEsbuild();
  const name = basename(outfile, extname(outfile));
  const chunks = resolve(dirname(outfile), `${name}.chunks`);
  try {
    const result = await esbuild.build({
      entryPoints: { [name]: entry },
      outdir: dirname(outfile),
      outExtension: { ".js": extname(outfile) || ".js" },
      // What only an `import()` loads stays out of the file every start reads and compiles:
      // -5.7 MiB of RSS at start for the bench's operator (the tracing SDK, the x509 encoder).
      splitting: true,
      chunkNames: `${name}.chunks/[name]-[hash]`,
      write: false,
      bundle: true,
      platform: "node",
      format: "esm",
      target: BUNDLE_TARGET,
      sourcemap: "linked",
      // Functions and classes keep their names where the bundle renames them (two copies of one
      // module, e.g. two kubeloop versions): kubeloop's errors match across copies by class name.
      keepNames: true,
      banner: { js: requireBanner },
      plugins: [optionalPackages, builtinsByRequire],
      ...(options.conditions && { conditions: [...options.conditions] }),
      absWorkingDir: cwd,
      logLevel: "silent",
    });
    rmSync(chunks, { recursive: true, force: true });
    for (const file of result.outputFiles) writeOutput(file);
    const warnings = result.warnings.map((m) => located(m, cwd));
    return { outfile, sourcemap: `${outfile}.map`, chunks, warnings };
  } catch (err) {
    const errors = (err as Partial<BuildFailure>).errors;
    if (!errors) throw err;
    throw new OperatorBuildError(
      "KL_BUILD_FAILED",
      `esbuild could not bundle ${relative(cwd, entry)}:\n${errors.map((m) => `  ${located(m, cwd)}`).join("\n")}\n` +
        "Fix these in the sources (`npm run typecheck` shows type errors too), then run `kubeloop build` again.",
      { cause: err },
    );
  }
}

/**
 * Writes one of esbuild's files, the code in ASCII. esbuild escapes non-ASCII characters in code
 * but keeps them in comments, and one `—` in a comment makes V8 hold the whole file's source as
 * two-byte text (+4.2 MiB for the bench's operator). Escaped, a comment reads `\u2014`; columns
 * after it on its line move, which a comment's end of line makes harmless to the source map.
 */
function writeOutput(file: OutputFile): void {
  mkdirSync(dirname(file.path), { recursive: true });
  const ascii = file.path.endsWith(".map")
    ? file.contents
    : file.text.replace(/[\u0080-\uffff]/g, escapeUnit);
  writeFileSync(file.path, ascii);
}

/** `\uXXXX` for one UTF-16 unit. */
function escapeUnit(unit: string): string {
  return `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/** esbuild, which the project installs (a devDependency of the template's package.json). */
async function loadEsbuild(): Promise<typeof import("esbuild")> {
  try {
    return await import("esbuild");
  } catch (err) {
    throw new OperatorBuildError(
      "KL_BUILD_ESBUILD_MISSING",
      `kubeloop build bundles with esbuild, which the project does not install. Install it: npm install --save-dev esbuild@${ESBUILD_VERSION}`,
      { cause: err },
    );
  }
}

/** One esbuild message as `file:line:column: text`. */
function located(message: Message, cwd: string): string {
  const where = message.location;
  if (!where) return message.text;
  return `${relative(cwd, resolve(cwd, where.file))}:${where.line}:${where.column + 1}: ${message.text}`;
}
