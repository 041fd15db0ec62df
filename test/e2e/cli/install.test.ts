/**
 * `kubeloop install` against the run's cluster: it server-side applies the CRDs of the project's
 * operator, waits until they are Established, prints them, and may be run again. The operator is
 * a plain ES module on this checkout's build (dist/), so no TypeScript loader is involved.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { kubeconfigPath, kubectl, kubectlJson } from "../support.ts";

const run = promisify(execFile);
const checkout = resolve(fileURLToPath(import.meta.url), "../../../..");
const cli = join(checkout, "bin", "kubeloop.js");

/** An operator module serving one kind of a group of its own. */
function operatorModule(group: string): string {
  const kubeloop = pathToFileURL(join(checkout, "dist", "index.js")).href;
  return `import { controller, defineKind, defineOperator, z } from ${JSON.stringify(kubeloop)};
const Bolt = defineKind({
  group: ${JSON.stringify(group)},
  version: "v1",
  kind: "Bolt",
  scope: "Namespaced",
  spec: z.object({ length: z.number().int() }),
});
export default defineOperator({
  name: "bolts",
  kinds: [Bolt],
  setup: (host) => void controller(host).for(Bolt).reconcile(async () => undefined),
});
`;
}

/** Runs the CLI in `cwd` with the run's KUBECONFIG, outside this test runner. */
async function kubeloop(args: string[], cwd: string) {
  const { NODE_TEST_CONTEXT: _, NODE_OPTIONS: __, ...env } = process.env;
  return run(process.execPath, [cli, ...args], {
    cwd,
    env: { ...env, KUBECONFIG: kubeconfigPath() },
    timeout: 120_000,
  });
}

test("kubeloop install applies the operator's CRDs, waits until they are Established, and prints them", async (t) => {
  assert.ok(existsSync(join(checkout, "dist", "cli", "main.js")), "the checkout is built (npm run build)");
  const group = `install-${randomBytes(3).toString("hex")}.e2e.kubeloop.dev`;
  const dir = mkdtempSync(join(tmpdir(), "kubeloop-install-"));
  t.after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await kubectl(["delete", "crd", `bolts.${group}`, "--wait=false"], { allowFail: true });
  });
  writeFileSync(join(dir, "operator.mjs"), operatorModule(group));

  const installed = await kubeloop(["install", "--operator", "operator.mjs"], dir);
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

  const again = await kubeloop(["install", "--operator", "operator.mjs"], dir);
  assert.equal(again.stdout, installed.stdout, "installing again changes nothing and says the same");
});
