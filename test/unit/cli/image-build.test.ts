import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it, type TestContext } from "node:test";
import { localPackagesOf } from "../../../src/cli/image-build.ts";

/** A project depending on `dependencies`, beside a kubeloop checkout (version 0.3.1); cleaned up after `t`. */
function project(t: TestContext, dependencies: Record<string, string>) {
  const root = mkdtempSync(join(tmpdir(), "kubeloop-image-build-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const checkout = join(root, "kubeloop");
  mkdirSync(checkout);
  writeFileSync(join(checkout, "package.json"), JSON.stringify({ name: "kubeloop", version: "0.3.1" }));
  const dir = join(root, "my-operator");
  mkdirSync(dir);
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ dependencies, devDependencies: { tsx: "4.23.15" } }),
  );
  return { dir, checkout };
}

describe("kubeloop generate: local packages and the image build", () => {
  it("copies a package vendored inside the project", (t) => {
    const { dir } = project(t, { kubeloop: "file:vendor/kubeloop-0.3.1.tgz", zod: "^4.0.0" });
    assert.deepEqual(localPackagesOf(dir), { inside: ["vendor/kubeloop-0.3.1.tgz"], unreachable: [] });
  });

  it("names the fix for a checkout outside the project, which docker build cannot reach", (t) => {
    const { dir, checkout } = project(t, { kubeloop: `file:${join("..", "kubeloop")}` });
    const { inside, unreachable } = localPackagesOf(dir);
    assert.deepEqual(inside, []);
    assert.equal(unreachable.length, 1);
    assert.equal(
      unreachable[0],
      `kubeloop is installed from ${checkout}, outside the project, which \`docker build\` cannot reach. ` +
        `Vendor it into the project: \`mkdir -p vendor && npm pack ${checkout} --pack-destination vendor && npm install ./vendor/kubeloop-0.3.1.tgz\`, ` +
        "then run `kubeloop generate` again (or depend on a published version).",
    );
  });

  it("has nothing to say about registry versions or a directory without package.json", (t) => {
    const { dir } = project(t, { kubeloop: "^0.3.1" });
    assert.deepEqual(localPackagesOf(dir), { inside: [], unreachable: [] });
    assert.deepEqual(localPackagesOf(join(dir, "nowhere")), { inside: [], unreachable: [] });
  });
});
