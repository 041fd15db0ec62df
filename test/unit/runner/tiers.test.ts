/** The test tiers: an end-to-end file starting a control plane of its own is a system test, the rest integration. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { e2eTierOf, endToEndGroups, integrationGroup } from "../../tiers.ts";

const repository = fileURLToPath(new URL("../../..", import.meta.url));
const tierOfFile = (path: string) => e2eTierOf(readFileSync(join(repository, path), "utf8"));

describe("e2eTierOf", () => {
  it("puts a file that starts a control plane of its own in the system tier", () => {
    assert.equal(e2eTierOf("const kubeconfig = await ownCluster(t);"), "system");
    assert.equal(e2eTierOf("const report = await runConformance(spec, { shards: 2 });"), "system");
    assert.equal(e2eTierOf('await sh("npx", ["kubeloop", "verify"], dir);'), "system");
    assert.equal(
      e2eTierOf("const client = await testClient();\nconst ns = await testNamespace(t);"),
      "integration",
    );
  });

  it("classifies the suite's own files by what they start", () => {
    for (const system of [
      "operators/myproxy/test/e2e/conformance.test.ts",
      "test/e2e/conformance/verify-cli.test.ts",
      "test/e2e/sharding/myproxy.test.ts",
      "test/e2e/election/rolling-update.test.ts",
      "test/e2e/webhooks/admission.test.ts",
      "test/e2e/cluster/restart.test.ts",
      "test/e2e/multicluster/fleet.test.ts",
    ]) {
      assert.equal(tierOfFile(system), "system", system);
    }
    for (const integration of [
      "test/e2e/status/failing.test.ts",
      "operators/myproxy/test/e2e/drift.test.ts",
    ]) {
      assert.equal(tierOfFile(integration), "integration", integration);
    }
  });
});

describe("endToEndGroups", () => {
  it("runs a system file alone and integration files of one folder a few to a process, in the order given", () => {
    const tierOf = {
      "e2e/a/long.test.ts": "system",
      "e2e/a/one.test.ts": "integration",
      "e2e/b/one.test.ts": "integration",
      "e2e/a/two.test.ts": "integration",
      "e2e/a/three.test.ts": "integration",
      "e2e/a/four.test.ts": "integration",
      "e2e/a/other.test.ts": "system",
    } as const;
    assert.equal(integrationGroup, 3);
    assert.deepEqual(endToEndGroups(Object.keys(tierOf), tierOf), [
      ["e2e/a/long.test.ts"],
      ["e2e/a/one.test.ts", "e2e/a/two.test.ts", "e2e/a/three.test.ts"],
      ["e2e/b/one.test.ts"],
      ["e2e/a/four.test.ts"],
      ["e2e/a/other.test.ts"],
    ]);
  });
});
