/**
 * `kubeloop test` serves the conversion webhooks of the project's operator for the whole run (a
 * CRD's conversion is cluster-wide), on the local cluster it starts: a project test writing an
 * old version reads it back in the new one.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { checkout, kubeloop } from "./project.ts";

test("kubeloop test serves the operator's conversions for the run it starts", async () => {
  assert.ok(existsSync(join(checkout, "dist", "cli", "main.js")), "the checkout is built (npm run build)");
  const args = [
    "test",
    "--operator",
    "operators/myproxy/operator.ts",
    "test/e2e/fixtures/conversion-user-test.ts",
  ];
  const { stdout } = await kubeloop(args, checkout);
  assert.match(stdout, /^# pass 1$/m);
  assert.match(stdout, /^# fail 0$/m);
});
