import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it, type TestContext } from "node:test";
import { pathToFileURL } from "node:url";
import { bundleOperator, OperatorBuildError } from "../../../src/operator/index.ts";

const agentModule = join(import.meta.dirname, "../../../src/client/internal/agent.ts");
const errorsModule = join(import.meta.dirname, "../../../src/errors/index.ts");

/** A project directory outside the repository (no node_modules) with `files`; removed after `t`. */
function project(t: TestContext, files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "kubeloop-build-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

describe("kubeloop build", () => {
  it("bundles undici's internals the client loads by path, so the bundle runs without node_modules", async (t) => {
    const cwd = project(t, {
      "src/main.ts": `export { Agent, parseHeaders } from ${JSON.stringify(agentModule)};\n`,
    });
    const bundle = await bundleOperator({ cwd });
    assert.equal(bundle.outfile, join(cwd, "dist/operator.mjs"));
    assert.ok(existsSync(bundle.sourcemap));
    assert.doesNotMatch(readFileSync(bundle.outfile, "utf8"), /require\d*\(["']undici/);
    const loaded = (await import(
      pathToFileURL(bundle.outfile).href
    )) as typeof import("../../../src/client/internal/agent.ts");
    assert.equal(typeof loaded.Agent.prototype.request, "function");
    assert.deepEqual(loaded.parseHeaders([Buffer.from("Content-Type"), Buffer.from("text/plain")]), {
      "content-type": "text/plain",
    });
  });

  it("keeps class names when two copies of kubeloop share the bundle, so its errors match across them", async (t) => {
    const copy = (n: number) => ({
      [`copy${n}/errors.ts`]: readFileSync(errorsModule, "utf8"),
      [`copy${n}/not-found.ts`]:
        'import { KubeloopError } from "./errors.ts";\nexport class NotFoundError extends KubeloopError {}\n',
    });
    const cwd = project(t, {
      ...copy(1),
      ...copy(2),
      "src/main.ts":
        'import { NotFoundError as One } from "../copy1/not-found.ts";\n' +
        'import { NotFoundError as Two } from "../copy2/not-found.ts";\n' +
        'const thrown = new One("KL_NOT_FOUND", "gone");\n' +
        "export const names = [One.name, Two.name, thrown.name];\n" +
        "export const matches = thrown instanceof Two;\n",
    });
    const bundle = await bundleOperator({ cwd });
    const loaded = (await import(pathToFileURL(bundle.outfile).href)) as {
      names: string[];
      matches: boolean;
    };
    assert.deepEqual(loaded.names, ["NotFoundError", "NotFoundError", "NotFoundError"]);
    assert.equal(loaded.matches, true, "an error of one copy is an instance of the other's class");
  });

  it("leaves an import() of a package the project does not install to fail at run time, as before bundling", async (t) => {
    const cwd = project(t, {
      "src/main.ts":
        'export const load = () => import("kubeloop-optional-not-installed");\nexport const fs = await import("node:fs");\n',
    });
    const bundle = await bundleOperator({ cwd });
    const loaded = (await import(pathToFileURL(bundle.outfile).href)) as {
      load: () => Promise<unknown>;
      fs: object;
    };
    assert.equal(typeof (loaded.fs as { readFileSync?: unknown }).readFileSync, "function");
    await assert.rejects(loaded.load(), { code: "ERR_MODULE_NOT_FOUND" });
  });

  it("resolves a package's exports with the conditions given, as the kit's process resolves them", async (t) => {
    const cwd = project(t, {
      "src/main.ts": 'export { origin } from "conditioned";\n',
      "node_modules/conditioned/package.json": JSON.stringify({
        name: "conditioned",
        type: "module",
        exports: { ".": { "test-source": "./source.js", default: "./built.js" } },
      }),
      "node_modules/conditioned/source.js": 'export const origin = "source";\n',
      "node_modules/conditioned/built.js": 'export const origin = "built";\n',
    });
    const origin = async (conditions?: string[]) => {
      const outfile = `dist/${conditions ? "with" : "without"}.mjs`;
      const bundle = await bundleOperator({ cwd, outfile, ...(conditions && { conditions }) });
      return ((await import(pathToFileURL(bundle.outfile).href)) as { origin: string }).origin;
    };
    assert.equal(await origin(["test-source"]), "source");
    // Without conditions (the `kubeloop build` CLI), the package's default export as before.
    assert.equal(await origin(), "built");
  });

  it("writes ASCII, imports Node's modules with require, and puts what only import() loads in chunks", async (t) => {
    const cwd = project(t, {
      "src/main.ts":
        'import { createServer } from "node:http";\n' +
        "export class Documented {\n" +
        "  /** A doc comment esbuild keeps, with a dash \u2014 and an arrow \u2192. */\n" +
        "  method() {\n    return typeof createServer;\n  }\n}\n" +
        'export const later = () => import("./later.ts");\n',
      "src/later.ts": 'export const word = "caf\u00e9 \u2014 later";\n',
    });
    const stale = join(cwd, "dist/operator.chunks/stale.mjs");
    mkdirSync(join(stale, ".."), { recursive: true });
    writeFileSync(stale, "");
    const bundle = await bundleOperator({ cwd });
    const text = readFileSync(bundle.outfile, "utf8");
    assert.match(text, /^[\0-\x7f]*$/, "every character ASCII, comments' too");
    assert.match(text, /with a dash \\u2014 and an arrow \\u2192/);
    assert.doesNotMatch(text, /^import .*"node:http"/m, "node:http is not an ES import");
    assert.doesNotMatch(text, /caf/, "the module only import() loads is not in the bundle");
    assert.equal(existsSync(stale), false, "the chunk directory is written anew");
    const loaded = (await import(pathToFileURL(bundle.outfile).href)) as {
      Documented: new () => { method(): string };
      later: () => Promise<{ word: string }>;
    };
    assert.equal(new loaded.Documented().method(), "function");
    assert.equal((await loaded.later()).word, "caf\u00e9 \u2014 later");
    assert.ok(
      readdirSync(bundle.chunks).some((f) => readFileSync(join(bundle.chunks, f), "utf8").includes("later")),
    );
  });

  it("names the missing entry point and the flag that sets it", async (t) => {
    const cwd = project(t, { "package.json": "{}" });
    await assert.rejects(bundleOperator({ cwd, entry: "src/start.ts" }), (err: unknown) => {
      assert.ok(err instanceof OperatorBuildError);
      assert.equal(err.code, "KL_BUILD_ENTRY_MISSING");
      assert.match(err.message, /src\/start\.ts does not exist.*--entry/);
      return true;
    });
  });

  it("passes esbuild's errors through with their file:line:column", async (t) => {
    const cwd = project(t, {
      "src/main.ts": 'import { run } from "./missing.ts";\n\nrun(;\n',
    });
    await assert.rejects(bundleOperator({ cwd }), (err: unknown) => {
      assert.ok(err instanceof OperatorBuildError);
      assert.equal(err.code, "KL_BUILD_FAILED");
      assert.match(
        err.message,
        /^esbuild could not bundle src\/main\.ts:\n {2}src\/main\.ts:3:5: Unexpected ";"/,
      );
      return true;
    });
  });
});
