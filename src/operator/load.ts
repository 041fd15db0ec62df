import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { KubeloopError } from "../errors/index.ts";
import type { Operator } from "./operator.ts";

/** The operator module could not be loaded. Code `KL_OPERATOR_LOAD`. */
export class OperatorLoadError extends KubeloopError {
  constructor(path: string, problem: string) {
    super("KL_OPERATOR_LOAD", `cannot load the operator from ${path}: ${problem}`);
  }
}

function isOperator(value: unknown): value is Operator {
  const v = value as Partial<Operator> | undefined;
  return typeof v?.name === "string" && Array.isArray(v.kinds) && typeof v.setup === "function";
}

/**
 * Imports an operator project's entry module (default `src/operator.ts`; TypeScript needs a
 * loader such as tsx, which the `kubeloop` command registers) and returns its default export.
 */
export async function loadOperator(path = "src/operator.ts"): Promise<Operator> {
  const file = resolve(path);
  if (!existsSync(file)) {
    throw new OperatorLoadError(
      file,
      "no such file. Run this in an operator project (see `kubeloop init`) or pass --operator <file>",
    );
  }
  if (/\.[mc]?ts$/.test(file)) await registerTypeScript(file);
  return operatorOf(file, (await import(pathToFileURL(file).href)) as { default?: unknown });
}

/**
 * The operator an operator module (`file`, imported already: by {@link loadOperator}, or statically
 * by a bundle) exports as default; throws {@link OperatorLoadError} when it exports none.
 */
export function operatorOf(file: string, module: { default?: unknown }): Operator {
  if (!isOperator(module.default)) {
    throw new OperatorLoadError(
      file,
      "its default export is not an operator; export `defineOperator({ name, kinds, setup })` as default",
    );
  }
  return module.default;
}

/** Registers tsx (resolved from the project) so a TypeScript entry can be imported, unless a loader is active. */
async function registerTypeScript(file: string): Promise<void> {
  if (process.execArgv.some((a) => a.includes("tsx")) || process.env.KUBELOOP_TS_LOADER === "active") return;
  const api = tsxEsmApi(file);
  if (!api) {
    throw new OperatorLoadError(
      file,
      "it is TypeScript and the project has no TypeScript loader; install one with `npm install --save-dev tsx`",
    );
  }
  const { register } = (await import(pathToFileURL(api).href)) as { register: () => unknown };
  register();
  process.env.KUBELOOP_TS_LOADER = "active";
}

/** The path of tsx's ESM API (`tsx/esm/api`, import condition) as installed for `file`'s project. */
function tsxEsmApi(file: string): string | undefined {
  try {
    const manifest = createRequire(file).resolve("tsx/package.json");
    const exported = (
      JSON.parse(readFileSync(manifest, "utf8")) as {
        exports: Record<string, { import: { default: string } }>;
      }
    ).exports["./esm/api"]?.import.default;
    return exported ? join(dirname(manifest), exported) : undefined;
  } catch {
    return undefined;
  }
}
