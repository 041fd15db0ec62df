/**
 * Loading a project's conformance spec (`test/conformance.ts` by default), a TypeScript module that
 * default-exports `defineConformance(...)`. Like `loadOperator`, it registers the project's tsx
 * first unless a TypeScript loader is already active.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ConformanceError } from "./errors.ts";
import { type ConformanceSpec, defineConformance } from "./spec.ts";

/** The path of tsx's ESM API (`tsx/esm/api`, import condition) as installed for `file`'s project. */
function tsxEsmApi(file: string): string | undefined {
  try {
    const manifest = createRequire(file).resolve("tsx/package.json");
    const { exports } = JSON.parse(readFileSync(manifest, "utf8")) as {
      exports: Record<string, { import?: { default?: string } }>;
    };
    const api = exports["./esm/api"]?.import?.default;
    return api ? join(dirname(manifest), api) : undefined;
  } catch {
    return undefined;
  }
}

async function registerTypeScript(file: string): Promise<void> {
  if (process.execArgv.some((a) => a.includes("tsx")) || process.env.KUBELOOP_TS_LOADER === "active") return;
  const api = tsxEsmApi(file);
  if (!api) {
    throw new ConformanceError(
      `cannot load ${file}: it is TypeScript and the project has no TypeScript loader; install one with \`npm install --save-dev tsx\``,
    );
  }
  const { register } = (await import(pathToFileURL(api).href)) as { register: () => unknown };
  register();
  process.env.KUBELOOP_TS_LOADER = "active";
}

/**
 * Imports the conformance spec at `path` (relative to the current directory) and returns it, with
 * relative paths in it resolved against the project root: the directory holding the spec's
 * nearest `package.json`, else the current directory.
 */
export async function loadConformanceSpec(path = "test/conformance.ts"): Promise<ConformanceSpec> {
  const file = resolve(path);
  if (!existsSync(file)) {
    throw new ConformanceError(
      `no conformance spec at ${file}; write one that default-exports defineConformance({ operator, fixtures }) ` +
        "(see `kubeloop init`'s test/conformance.ts), or pass --spec <file>",
    );
  }
  if (/\.[mc]?ts$/.test(file)) await registerTypeScript(file);
  const module = (await import(pathToFileURL(file).href)) as { default?: ConformanceSpec };
  if (!module.default) {
    throw new ConformanceError(`${file} has no default export; export default defineConformance({ ... })`);
  }
  return defineConformance({ root: projectRoot(file), ...module.default });
}

function projectRoot(file: string): string {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    if (existsSync(resolve(dir, "package.json"))) return dir;
    if (dirname(dir) === dir) return process.cwd();
  }
}
