/**
 * `kubeloop install` against the run's cluster: it server-side applies the CRDs of the project's
 * operator, waits until they are Established, prints them, and may be run again.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { kubeconfigPath, kubectl, kubectlJson } from "../support.ts";
import { checkout, kubeloop, operatorModule } from "./project.ts";

test("kubeloop install applies the operator's CRDs, waits until they are Established, and prints them", async (t) => {
  assert.ok(existsSync(join(checkout, "dist", "cli", "main.js")), "the checkout is built (npm run build)");
  const group = `install-${randomBytes(3).toString("hex")}.e2e.kubeloop.dev`;
  const dir = mkdtempSync(join(tmpdir(), "kubeloop-install-"));
  t.after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await kubectl(["delete", "crd", `bolts.${group}`, "--wait=false"], { allowFail: true });
  });
  writeFileSync(join(dir, "operator.mjs"), operatorModule(group));

  const env = { KUBECONFIG: kubeconfigPath() };
  const installed = await kubeloop(["install", "--operator", "operator.mjs"], dir, env);
  assert.equal(installed.stdout, `Established bolts.${group} (Bolt: ${group}/v1)\n`);
  const crd = await kubectlJson<{
    metadata: { managedFields: { manager: string; operation: string }[] };
    status: { conditions: { type: string; status: string }[] };
  }>(["get", "crd", `bolts.${group}`, "--show-managed-fields"]);
  assert.ok(crd.status.conditions.some((c) => c.type === "Established" && c.status === "True"));
  assert.ok(
    crd.metadata.managedFields.some((f) => f.manager === "kubeloop" && f.operation === "Apply"),
    "applied server-side by the field manager kubeloop",
  );
  const served = await kubectl(["get", `bolts.${group}`, "--all-namespaces"]);
  assert.equal(served.code, 0, "the kind is served");

  const again = await kubeloop(["install", "--operator", "operator.mjs"], dir, env);
  assert.equal(again.stdout, installed.stdout, "installing again changes nothing and says the same");
});
