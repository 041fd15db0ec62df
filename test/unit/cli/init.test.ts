import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, it, type TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import { kubeloopDependency, packageVersion } from "../../../src/cli/dependency.ts";
import { initProject } from "../../../src/cli/init.ts";

const checkout = resolve(fileURLToPath(import.meta.url), "../../../..");

function scratch(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), "kubeloop-init-unit-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A kubeloop 1.2.3 installed in `project`'s node_modules, recorded by npm as `resolved` (if given). */
function installed(project: string, resolved?: string): string {
  const root = join(project, "node_modules", "kubeloop");
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, "package.json"), JSON.stringify({ name: "kubeloop", version: "1.2.3" }));
  if (resolved !== undefined) {
    const packages = { "node_modules/kubeloop": { version: "1.2.3", resolved } };
    writeFileSync(join(project, "node_modules", ".package-lock.json"), JSON.stringify({ packages }));
  }
  return root;
}

/** The `allowScripts` of the project scaffolded in `dir`. */
function allowScripts(dir: string): Record<string, boolean> | undefined {
  return (
    JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { allowScripts?: Record<string, boolean> }
  ).allowScripts;
}

describe("kubeloopDependency", () => {
  it("points a checkout's scaffold at the checkout itself", () => {
    assert.equal(kubeloopDependency(checkout), `file:${checkout}`);
  });

  it("points at the tarball npm installed it from, relative or absolute", (t) => {
    const project = scratch(t);
    const tarball = join(project, "kubeloop-1.2.3.tgz");
    writeFileSync(tarball, "");
    assert.equal(kubeloopDependency(installed(project, "file:kubeloop-1.2.3.tgz")), `file:${tarball}`);
    assert.equal(kubeloopDependency(installed(project, `file:${tarball}`)), `file:${tarball}`);
  });

  it("asks a registry for a compatible version only when npm installed it from one", (t) => {
    const project = scratch(t);
    const url = "https://registry.npmjs.org/kubeloop/-/kubeloop-1.2.3.tgz";
    assert.equal(kubeloopDependency(installed(project, url)), "^1.2.3");
  });

  it("keeps any other source npm recorded, else names the installed version exactly", (t) => {
    const project = scratch(t);
    const git = "git+ssh://git@example.com/kubeloop.git#0123abc";
    assert.equal(kubeloopDependency(installed(project, git)), git);
    assert.equal(kubeloopDependency(installed(project, "file:gone-1.2.3.tgz")), "1.2.3");
    rmSync(join(project, "node_modules", ".package-lock.json"));
    assert.equal(kubeloopDependency(installed(project)), "1.2.3");
  });
});

describe("initProject", () => {
  it("depends on this checkout by default and titles the README with the project's name", (t) => {
    const dir = join(scratch(t), "hello-operator");
    initProject(dir, { kind: "Hello" });
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    assert.equal(manifest.dependencies.kubeloop, `file:${checkout}`);
    const readme = readFileSync(join(dir, "README.md"), "utf8");
    assert.equal(readme.split("\n")[0], "# hello-operator");
    assert.doesNotMatch(readme, /__[A-Z]+__|npmjs\.com/);
  });

  it("takes --kubeloop as an override", (t) => {
    const dir = join(scratch(t), "pinned");
    initProject(dir, { kubeloop: `^${packageVersion(checkout)}` });
    assert.match(readFileSync(join(dir, "package.json"), "utf8"), /"kubeloop": "\^0\.\d+\.\d+"/);
    assert.deepEqual(allowScripts(dir), { esbuild: true }, "a registry package's prepare never runs");
    assert.equal(existsSync(join(dir, "vendor")), false, "nothing to vendor for a registry version");
  });

  it("writes a .gitignore keeping installed packages and build output out of git", (t) => {
    const dir = join(scratch(t), "ignored");
    const written = initProject(dir);
    assert.ok(written.some((f) => f.endsWith(".gitignore")));
    const ignored = readFileSync(join(dir, ".gitignore"), "utf8").split("\n");
    assert.ok(ignored.includes("node_modules/") && ignored.includes("dist/"), ignored.join(" "));
    assert.ok(!existsSync(join(dir, "gitignore")));
  });

  it("reviews every install script npm 11 would list: esbuild's runs, a checkout's prepare does not", (t) => {
    const dir = join(scratch(t), "reviewed");
    initProject(dir);
    assert.deepEqual(allowScripts(dir), { esbuild: true, [`file:${checkout}`]: false });
  });

  it("copies a tarball kubeloop into the project's vendor/ and depends on it there, so npm ci works anywhere", (t) => {
    const root = scratch(t);
    const tarball = join(root, "downloads", "kubeloop-1.2.3.tgz");
    mkdirSync(join(root, "downloads"));
    const packed = Buffer.from([0x1f, 0x8b, 0x08, 0xff, 0xfe, 0x00]); // gzip's magic, then bytes no UTF-8 text has
    writeFileSync(tarball, packed);
    // As init picks it when run from an installed tarball (`kubeloopDependency` above), and as --kubeloop gives it.
    for (const spec of [`file:${tarball}`, tarball]) {
      const dir = join(root, `from-${spec === tarball ? "path" : "spec"}`);
      initProject(dir, { kubeloop: spec });
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        dependencies: Record<string, string>;
      };
      assert.equal(manifest.dependencies.kubeloop, "file:vendor/kubeloop-1.2.3.tgz", spec);
      assert.deepEqual(
        readFileSync(join(dir, "vendor", "kubeloop-1.2.3.tgz")),
        packed,
        "copied byte for byte",
      );
    }
  });
});
