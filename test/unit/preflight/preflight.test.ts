/**
 * The test run's preflight (`test/preflight.ts`, run first by `test/run.ts`): a machine lacking Go,
 * nginx or a browser is told so, with the fix, before any test runs. Machines are made of temp
 * directories holding stand-in executables (a `go` that prints its version), put on PATH.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, it, type TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import { components, requiredGo } from "../../../src/cluster/versions.ts";
import { browserExecutable, findBrowser, type Host, preflight } from "../../preflight.ts";

const repository = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const liveTest = "test/e2e/demo/live-page.test.ts";
const nginxTest = "operators/myproxy/test/unit/nginx.test.ts";
const queueTest = "test/unit/queue/queue.test.ts";
const clusterTest = "test/e2e/controller/reconcile.test.ts";

/** A temp directory removed when the test ends. */
function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), "kubeloop-preflight-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes an executable shell script at `path` (its directories made). */
function executable(path: string, script = "exit 0"): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `#!/bin/sh\n${script}\n`);
  chmodSync(path, 0o755);
}

/** A directory for PATH holding stand-ins for `names` (`go` reports `go<goVersion>`). */
function binDir(t: TestContext, names: string[], goVersion = "1.26.8"): string {
  const dir = tempDir(t);
  for (const name of names) executable(join(dir, name), name === "go" ? `echo go${goVersion}` : "exit 0");
  return dir;
}

/** A Linux host run as root whose environment is only `env`. */
function host(env: NodeJS.ProcessEnv, over: Partial<Host> = {}): Host {
  return { env, platform: "linux", root: true, ...over };
}

/**
 * `test/run.ts` with `args`, on a PATH of `path` only, as `npm test` starts it. Its cache is
 * empty, so a check that wrongly let a run through could not start a cluster from the machine's.
 */
function run(t: TestContext, args: string[], path: string) {
  const started = performance.now();
  const result = spawnSync(
    process.execPath,
    ["--conditions=kubeloop-source", "--import", "tsx", join(repository, "test/run.ts"), ...args],
    { cwd: repository, env: { PATH: path, KUBELOOP_CACHE_DIR: tempDir(t) }, encoding: "utf8" },
  );
  return { ...result, seconds: (performance.now() - started) / 1000 };
}

describe("test/run.ts checks what its tests need before running any", () => {
  it("a machine with nothing: one message names Go, nginx and a browser with their install commands, and it exits 1", (t) => {
    const { status, stderr, stdout, seconds } = run(t, ["all"], tempDir(t));
    t.diagnostic(`stopped after ${seconds.toFixed(1)} s`);
    assert.equal(status, 1, stderr);
    assert.match(stderr, /^The tests cannot run: this machine lacks what some of them need/m);
    assert.match(
      stderr,
      new RegExp(`Go >= ${requiredGo.replaceAll(".", "\\.")} .*No Go toolchain was found on PATH`),
    );
    assert.match(stderr, /macOS: brew install go/);
    assert.match(stderr, /- nginx: no nginx on PATH/);
    assert.match(stderr, /Debian\/Ubuntu: sudo apt-get install nginx/);
    assert.match(stderr, /- a Chromium-family browser .*none of chromium, chromium-browser, google-chrome/);
    assert.match(stderr, /Debian: sudo apt-get install chromium/);
    assert.match(stderr, /macOS: brew install --cask google-chrome/);
    assert.match(stderr, /npm test -- --without-browser/);
    assert.doesNotMatch(stdout, /ℹ tests \d/, "no test ran");
  });

  it("a machine lacking only the browser is told only that", (t) => {
    const { status, stderr, stdout } = run(t, ["all"], binDir(t, ["go", "nginx"]));
    assert.equal(status, 1, stderr);
    assert.match(stderr, /- a Chromium-family browser/);
    assert.doesNotMatch(stderr, /- Go|- nginx/);
    assert.doesNotMatch(stdout, /ℹ tests \d/, "no test ran");
  });

  it("--without-browser leaves the live page's test out and says so, and then needs no browser", (t) => {
    const { status, stdout, stderr } = run(t, ["e2e", "--without-browser", "live-page"], binDir(t, ["go"]));
    assert.match(
      stdout,
      /ℹ left out by --without-browser: test\/e2e\/demo\/live-page\.test\.ts, which needs a Chromium-family browser/,
    );
    assert.doesNotMatch(stderr, /The tests cannot run/);
    assert.match(stderr, /no test file is left to run/);
    assert.equal(status, 1);
  });

  it("an unknown switch is refused rather than ignored", (t) => {
    const { status, stderr } = run(t, ["unit", "--without-browsers"], tempDir(t));
    assert.equal(status, 1);
    assert.match(stderr, /unknown option --without-browsers \(known: --without-browser\)/);
  });
});

describe("preflight", () => {
  it("passes on a machine with Go, nginx and a browser, run as root on Linux", async (t) => {
    const plan = await preflight(
      [liveTest, nginxTest, queueTest],
      [],
      host({ PATH: binDir(t, ["go", "nginx", "chromium"]) }),
    );
    assert.deepEqual(plan.missing, []);
    assert.deepEqual(plan.files, [liveTest, nginxTest, queueTest]);
    assert.deepEqual(plan.leftOut, []);
  });

  it("asks only for what the files run need", async (t) => {
    const nothing = host({ PATH: tempDir(t) });
    assert.deepEqual((await preflight([queueTest], [], nothing)).missing, []);
    const forNginx = await preflight([nginxTest], [], nothing);
    assert.deepEqual(
      forNginx.missing.map((m) => m.prerequisite.name),
      ["nginx"],
    );
  });

  it("refuses a Go older than the control plane's go.mod files require", async (t) => {
    const plan = await preflight([clusterTest], [], host({ PATH: binDir(t, ["go"], "1.22.4") }));
    assert.equal(plan.missing.length, 1);
    assert.match(
      plan.missing[0]?.problem ?? "",
      new RegExp(`Go go1\\.22\\.4 is too old: .* need Go >= ${requiredGo}`),
    );
  });

  it("needs no Go when KUBELOOP_ASSETS holds every binary, and names those it lacks", async (t) => {
    const assets = tempDir(t);
    for (const c of components.filter((c) => c.name !== "kwok")) executable(join(assets, c.name));
    const env = { PATH: tempDir(t), KUBELOOP_ASSETS: assets };
    const [lacking] = (await preflight([clusterTest], [], host(env))).missing;
    assert.match(lacking?.problem ?? "", /KUBELOOP_ASSETS=.* lacks kwok$/);
    executable(join(assets, "kwok"));
    assert.deepEqual((await preflight([clusterTest], [], host(env))).missing, []);
  });

  it("asks for root on Linux where the myproxy tests run nginx, and says why elsewhere", async (t) => {
    const PATH = binDir(t, ["nginx"]);
    const notRoot = await preflight([nginxTest], [], host({ PATH }, { root: false }));
    assert.deepEqual(
      notRoot.missing.map((m) => [m.prerequisite.name, m.problem]),
      [["root on Linux", "not running as root"]],
    );
    const mac = await preflight([nginxTest], [], host({ PATH }, { platform: "darwin" }));
    assert.deepEqual(
      mac.missing.map((m) => m.problem),
      ["this is darwin"],
    );
  });
});

describe("findBrowser", () => {
  it("finds each of chromium, chromium-browser, google-chrome and google-chrome-stable on PATH", (t) => {
    for (const name of ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]) {
      const dir = binDir(t, [name]);
      assert.deepEqual(findBrowser(host({ PATH: `${tempDir(t)}:${dir}` })), { path: join(dir, name) });
    }
  });

  it("takes KUBELOOP_CHROMIUM over PATH, and says when it names no executable", (t) => {
    const chosen = join(tempDir(t), "my-chrome");
    executable(chosen);
    const PATH = binDir(t, ["chromium"]);
    assert.deepEqual(findBrowser(host({ PATH, KUBELOOP_CHROMIUM: chosen })), { path: chosen });
    assert.deepEqual(findBrowser(host({ PATH, KUBELOOP_CHROMIUM: `${chosen}-gone` })), {
      missing: `KUBELOOP_CHROMIUM=${chosen}-gone is not an executable file`,
    });
  });

  it("finds Google Chrome's and Chromium's application bundles in ~/Applications on macOS, and only there", (t) => {
    for (const bundle of [
      "Google Chrome.app/Contents/MacOS/Google Chrome",
      "Chromium.app/Contents/MacOS/Chromium",
    ]) {
      const HOME = tempDir(t);
      executable(join(HOME, "Applications", bundle));
      const env = { PATH: tempDir(t), HOME };
      assert.deepEqual(findBrowser(host(env, { platform: "darwin" })), {
        path: join(HOME, "Applications", bundle),
      });
      assert.ok("missing" in findBrowser(host(env)), "a Linux host does not look for macOS bundles");
    }
  });

  it("browserExecutable names the fix when there is none, for a test file run on its own", (t) => {
    assert.throws(
      () => browserExecutable(host({ PATH: tempDir(t) })),
      /- a Chromium-family browser .*: none of chromium.*\n.*\n +Debian: sudo apt-get install chromium/,
    );
  });

  it("ignores a file on PATH that is not executable", (t) => {
    const dir = tempDir(t);
    writeFileSync(join(dir, "chromium"), "");
    const found = findBrowser(host({ PATH: dir }));
    assert.ok("missing" in found);
    assert.match(
      found.missing,
      /none of chromium, chromium-browser, google-chrome, google-chrome-stable is on PATH/,
    );
  });
});
