/** The test tiers: an end-to-end file starting a control plane of its own is a system test, the rest integration. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { e2eTierOf } from "../../tiers.ts";

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
