/**
 * `kubeloop verify` on a project scaffolded with `kubeloop init` and installed against this
 * checkout (its dist/, as the init test does): the template's operator passes every check and the
 * command prints the table; `--explore` on two trials finds no violation; a broken copy fails
 * with exit code 1 and the failure in full.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { checkout, cli, freshEnv } from "../cli/project.ts";

const run = promisify(execFile);

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

async function sh(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Outcome> {
  try {
    const { stdout, stderr } = await run(cmd, args, {
      cwd,
      timeout: 1_200_000,
      maxBuffer: 64 << 20,
      env: { ...freshEnv(), ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : 1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

test("kubeloop verify runs every check on a scaffolded project and prints the table; a broken copy fails", {
  timeout: 2_400_000,
}, async (t) => {
  assert.ok(existsSync(join(checkout, "dist", "cli", "verify.js")), "the checkout is built (npm run build)");
  const dir = join(mkdtempSync(join(tmpdir(), "kubeloop-verify-")), "hello-operator");
  t.after(() => rmSync(resolve(dir, ".."), { recursive: true, force: true }));
  const init = await sh(
    process.execPath,
    [cli, "init", dir, "--kind", "Hello", "--kubeloop", `file:${checkout}`],
    checkout,
  );
  assert.equal(init.code, 0, init.stderr);
  assert.ok(existsSync(join(dir, "test", "conformance.ts")), "the template ships a conformance spec");
  // Not the checkout's prepare script: it would rebuild dist/ while other test files run it.
  const install = await sh("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts"], dir);
  assert.equal(install.code, 0, install.stderr);

  const help = await sh("npx", ["kubeloop", "verify", "--help"], dir);
  assert.match(help.stdout, /^Usage: kubeloop verify/m);
  const unknown = await sh("npx", ["kubeloop", "verify", "--checks", "converge,nope"], dir);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /kubeloop: unknown check nope; the checks are converge, idempotent/);

  // Its own TMPDIR, to see what verify leaves there: the operators it kills cannot clean up after
  // themselves (each webhook server writes a private key).
  const tmp = mkdtempSync(join(tmpdir(), "kubeloop-verify-tmp-"));
  t.after(() => rmSync(tmp, { recursive: true, force: true }));
  const verified = await sh("npx", ["kubeloop", "verify"], dir, { TMPDIR: tmp });
  const keyDirs = readdirSync(tmp, { recursive: true, encoding: "utf8" }).filter((f) =>
    f.includes("kubeloop-webhook-"),
  );
  assert.deepEqual(keyDirs, [], "no webhook key directory left behind");
  t.diagnostic(verified.stdout);
  assert.equal(verified.code, 0, `${verified.stdout}\n${verified.stderr}`);
  assert.match(verified.stdout, /^Conformance of hello-operator$/m);
  assert.match(verified.stdout, /^check +result +time +took +details$/m);
  for (const check of [
    "converge",
    "idempotent",
    "outputs-watched",
    "exclusive-outputs",
    "status-rebuild",
    "missed-events",
    "watch-expiry",
    "cache-heals",
    "crash-safety",
    "finalizers",
    "transient-failures",
    "generation-honesty",
    "leadership-fenced",
  ]) {
    assert.match(verified.stdout, new RegExp(`^${check} +✓ +\\d+\\.\\d s +\\S`, "m"), `${check} row`);
  }
  assert.match(verified.stdout, /all 13 checks passed/);
  assert.match(verified.stderr, /kubeloop verify: crash-safety: passed/);

  // Exploration on the budget CI gives the scaffold (issue 35): two trials, each perturbed.
  const explored = await sh("npx", ["kubeloop", "verify", "--explore", "--seed", "2", "--trials", "2"], dir);
  t.diagnostic(explored.stdout);
  assert.equal(explored.code, 0, `${explored.stdout}\n${explored.stderr}`);
  assert.match(explored.stdout, /^Exploration of hello-operator \(seed 2\)$/m);
  assert.equal(
    explored.stdout.match(/^ {2}trial \d: ✓ /gm)?.length,
    2,
    "two trials, each without a violation",
  );
  assert.match(explored.stdout, /^no violation in 2 trials/m);

  // Break the copy: a condition message that changes on every reconcile makes each status write
  // wake the next reconcile, which writes again.
  const controller = join(dir, "src", "controller.ts");
  const source = readFileSync(controller, "utf8");
  const stamp = ["(", "$", "{Date.now()})"].join(""); // `(${Date.now()})` in the copy's template literal
  const broken = source.replace("holds the message`", `holds the message ${stamp}\``);
  assert.notEqual(broken, source, "the template's controller has the message to break");
  writeFileSync(controller, broken);
  const failed = await sh("npx", ["kubeloop", "verify", "--checks", "idempotent", "--quiet"], dir);
  t.diagnostic(failed.stdout);
  assert.equal(failed.code, 1);
  assert.equal(failed.stderr.includes("kubeloop verify:"), false, "--quiet prints no progress");
  assert.match(
    failed.stdout,
    /^idempotent +✗ +– +[\d.]+ s +\d+ writes in the [\d.]+ s since everything settled \(PATCH hellos\/status\)/m,
  );
  assert.match(failed.stdout, /^✗ idempotent \(a settled object's reconcile writes nothing\)$/m);
  assert.match(
    failed.stdout,
    /^ {2}requests involved:\n {4}#\d+ PATCH \/apis\/hello-operator\.example\.com\/v1alpha1\/namespaces\/kl-idempotent-\w+\/hellos\/hello\/status/m,
  );
  assert.match(failed.stdout, /1 of 1 checks failed/);
});
