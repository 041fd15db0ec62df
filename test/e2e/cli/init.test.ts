import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { checkout, cli, freshEnv } from "./project.ts";

const run = promisify(execFile);

async function sh(cmd: string, args: string[], cwd: string, timeout = 600_000) {
  try {
    return await run(cmd, args, { cwd, timeout, maxBuffer: 64 << 20, env: freshEnv() });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${cmd} ${args.join(" ")} failed in ${cwd}: ${e.message}\n${e.stdout ?? ""}\n${e.stderr ?? ""}`,
    );
  }
}

test("kubeloop init run from this checkout scaffolds a project that installs against it and passes its own tests", {
  timeout: 900_000,
}, async (t) => {
  assert.ok(
    existsSync(join(checkout, "dist", "cli", "main.js")),
    "the checkout is built (npm ci runs `prepare`)",
  );
  const dir = join(mkdtempSync(join(tmpdir(), "kubeloop-init-")), "hello-operator");
  t.after(() => rmSync(resolve(dir, ".."), { recursive: true, force: true }));

  const init = await sh(process.execPath, [cli, "init", dir, "--kind", "Hello"], checkout);
  assert.match(init.stdout, /Created 12 files/);
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
    name: string;
    dependencies: Record<string, string>;
  };
  assert.equal(manifest.name, "hello-operator");
  assert.equal(manifest.dependencies.kubeloop, `file:${checkout}`, "the checkout that ran init, by default");
  assert.match(readFileSync(join(dir, "README.md"), "utf8"), /^# hello-operator\n/);
  assert.match(readFileSync(join(dir, "src", "api.ts"), "utf8"), /kind: "Hello"/);

  // As a user runs it: the scaffold's allowScripts keeps npm from running this checkout's prepare
  // (which would rebuild dist/ while other test files run it) and reviews every other install script.
  const installed = await sh("npm", ["install", "--no-audit", "--no-fund"], dir);
  assert.doesNotMatch(installed.stderr, /install-scripts|allowScripts/, "no install script left unreviewed");
  await sh("npm", ["run", "typecheck"], dir);
  await sh("npm", ["run", "build"], dir);
  assert.ok(existsSync(join(dir, "dist", "main.js")), "npm run build compiles the sources");
  // What the generated Dockerfile's build stage runs: the scaffold installs esbuild for it.
  await sh("npx", ["kubeloop", "build"], dir);
  assert.ok(
    existsSync(join(dir, "dist", "operator.mjs")),
    "kubeloop build bundles the container entry point the Dockerfile runs",
  );
  const tested = await sh("npm", ["test"], dir);
  assert.match(tested.stdout, /# pass 3/);
  assert.match(tested.stdout, /# fail 0/);
  // A ConfigMap name taken by someone else's is a state the test provokes, reported in conditions.
  assert.doesNotMatch(`${tested.stdout}${tested.stderr}`, /"level":50/, "a green run logs no error");

  const generated = await sh("npx", ["kubeloop", "generate"], dir);
  assert.match(generated.stdout, /config\/crds\.yaml/);
  const crds = readFileSync(join(dir, "config", "crds.yaml"), "utf8");
  assert.match(crds, /name: hellos\.hello-operator\.example\.com/);
  assert.match(readFileSync(join(dir, "config", "rbac.yaml"), "utf8"), /hellos\/status/);
  const webhooks = readFileSync(join(dir, "config", "webhooks.yaml"), "utf8");
  assert.match(webhooks, /kind: ValidatingWebhookConfiguration/);
  assert.match(webhooks, /name: vhello-v1alpha1\.hello-operator\.example\.com/);
  assert.match(webhooks, /path: \/validate-hello-operator-example-com-v1alpha1-hello/);

  // The project depends on this checkout, outside it: generate names the vendoring command, which works as printed.
  const vendoring = /Vendor it into the project: `([^`]+)`/.exec(generated.stderr)?.[1];
  assert.ok(vendoring, `generate prints the vendoring command:\n${generated.stderr}`);
  assert.match(
    vendoring,
    /^mkdir -p vendor && npm pack /,
    "vendor/ is made first: npm pack fails with enoent without it",
  );
  // npm_config_ignore_scripts: packing the checkout runs its prepare script, which would rebuild the
  // dist/ other test files run (it is built already); the command itself runs as printed.
  await run("sh", ["-c", vendoring], { cwd: dir, env: { ...freshEnv(), npm_config_ignore_scripts: "true" } });
  const version = JSON.parse(readFileSync(join(checkout, "package.json"), "utf8")).version as string;
  const vendored = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).dependencies.kubeloop;
  assert.equal(vendored, `file:vendor/kubeloop-${version}.tgz`);
  const again = await sh("npx", ["kubeloop", "generate"], dir);
  assert.doesNotMatch(again.stderr, /Vendor it/, "nothing left outside the project");
  assert.match(
    readFileSync(join(dir, "config", "Dockerfile"), "utf8"),
    new RegExp(`COPY vendor/kubeloop-${version.replaceAll(".", "\\.")}\\.tgz \\./vendor/`),
  );
});

test("kubeloop init refuses a non-empty directory and invalid names with one clear message", async () => {
  const dir = mkdtempSync(join(tmpdir(), "kubeloop-init-"));
  const busy = await run(process.execPath, [cli, "init", checkout], { cwd: dir }).catch(
    (e: { stderr: string; code: number }) => e,
  );
  assert.equal((busy as { code: number }).code, 1);
  assert.match((busy as { stderr: string }).stderr, /is not empty; pick a new directory/);
  const bad = await run(process.execPath, [cli, "init", join(dir, "x"), "--kind", "not-pascal"], {
    cwd: dir,
  }).catch((e: { stderr: string }) => e);
  assert.match((bad as { stderr: string }).stderr, /invalid kind "not-pascal": use PascalCase/);
  rmSync(dir, { recursive: true, force: true });
});

test("every kubeloop command has --help", async () => {
  for (const command of [
    [],
    ["init"],
    ["generate"],
    ["run"],
    ["cluster"],
    ["cluster", "up"],
    ["cluster", "down"],
    ["cluster", "status"],
  ]) {
    const { stdout } = await run(process.execPath, [cli, ...command, "--help"], { cwd: checkout });
    assert.match(stdout, /^Usage: kubeloop/m, `kubeloop ${command.join(" ")} --help`);
  }
});
