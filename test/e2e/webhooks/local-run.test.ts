/**
 * A local run leaves no trap behind: `kubeloop run` of an operator with an admission webhook and a
 * conversion, stopped with Ctrl-C (SIGINT), deletes the webhook configuration it applied and
 * points the CRD's conversion at the operator's Service, as deployed, instead of
 * `https://127.0.0.1:<port>`. Left in place, every create of the kind failed (`connection
 * refused`), and the deployed configuration (`kubeloop generate`, then `kubectl apply -k`) was
 * refused: merged into the run's, each `clientConfig` had both a `url` and a `service`.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  CustomResourceDefinition,
  resourceType,
  ValidatingWebhookConfiguration,
} from "../../../src/api/index.ts";
import { NotFoundError } from "../../../src/client/index.ts";
import { eventuallyWhile } from "../../../src/testing/index.ts";
import { kubeconfigPath, kubectl, onCleanup, testClient, testNamespace } from "../support.ts";

const src = (path: string) =>
  pathToFileURL(fileURLToPath(new URL(`../../../src/${path}`, import.meta.url))).href;
const cli = fileURLToPath(new URL("../../../src/cli/main.ts", import.meta.url));
/** tsx's loader, by path: the project directory has no node_modules to find it in. */
const tsx = import.meta.resolve("tsx");

/** An operator serving a validating webhook and a conversion for its kind Latch, in `namespace`. */
function operatorModule(name: string, group: string, namespace: string): string {
  return `import { defineKind, defineOperator, z } from ${JSON.stringify(src("index.ts"))};
import { conversion, validating, Verdict } from ${JSON.stringify(src("webhook/index.ts"))};
const Latch = defineKind({
  group: ${JSON.stringify(group)},
  version: "v1",
  kind: "Latch",
  scope: "Namespaced",
  spec: z.object({ size: z.number().int() }),
  versions: [{ name: "v1alpha1", spec: z.object({ size: z.number().int() }) }],
});
const positive = validating(Latch, (latch) =>
  latch.spec.size > 0
    ? undefined
    : Verdict.deny("a latch needs a size", { causes: [{ field: "spec.size", message: "must be positive" }] }),
);
const versions = conversion(Latch, { spokes: { v1alpha1: { toHub: (o) => o, fromHub: (o) => o } } });
export default defineOperator({
  name: ${JSON.stringify(name)},
  namespace: ${JSON.stringify(namespace)},
  kinds: [Latch],
  webhooks: [positive, versions],
  setup() {},
});
`;
}

/** Runs the kubeloop CLI from the sources in `cwd`, on the run's cluster. */
function kubeloop(args: string[], cwd: string): ChildProcess & { output: () => string } {
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const child = spawn(process.execPath, ["--import", tsx, cli, ...args], {
    cwd,
    env: { ...env, KUBECONFIG: kubeconfigPath() },
  });
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  return Object.assign(child, { output: () => output });
}

/** Resolves with `child`'s exit code, or `"still running"` after `timeoutMs` when given. */
function exited(child: ChildProcess, timeoutMs?: number): Promise<number | null | "still running"> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => resolve("still running"), timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

/** A project directory holding the operator module, removed when the test ends. */
async function project(t: TestContext, name: string, group: string, namespace: string) {
  const dir = await mkdtemp(join(tmpdir(), "kubeloop-e2e-local-run-"));
  onCleanup(t, () => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, "operator.ts"), operatorModule(name, group, namespace));
  return dir;
}

test("a local run stopped with Ctrl-C leaves creates working and the deployed configuration applicable", async (t) => {
  const namespace = await testNamespace(t);
  const id = randomBytes(3).toString("hex");
  const name = `latches-${id}`;
  const group = `latches-${id}.e2e.kubeloop.dev`;
  const Latch = resourceType(`${group}/v1`, "Latch", "latches", true);
  const dir = await project(t, name, group, namespace);
  const client = await testClient();
  const latch = (latchName: string, size: number) => ({
    apiVersion: Latch.apiVersion,
    kind: "Latch",
    metadata: { name: latchName, namespace },
    spec: { size },
  });

  // The defaults of a developer's run, but for the ports (files run in parallel) and the Lease.
  const run = kubeloop(
    [
      "run",
      "--operator=operator.ts",
      "--install-crds",
      "--leader-elect=false",
      "--metrics-bind-address=0",
      "--health-probe-bind-address=0",
      "--webhook-bind-address=127.0.0.1:0",
    ],
    dir,
  );
  onCleanup(t, () => run.kill("SIGKILL"));
  const running = exited(run);
  await eventuallyWhile(
    running,
    "kubeloop run exited while starting",
    () =>
      client.create(Latch, latch("probe", 0), { dryRun: true }).then(
        () => undefined,
        (err: Error) => /a latch needs a size/.test(err.message) || undefined,
      ),
    { what: "the run's webhook to refuse a latch without size", timeoutMs: 120_000, intervalMs: 500 },
  ).catch((err: Error) => assert.fail(`${err.message}:\n${run.output()}`));

  run.kill("SIGINT");
  assert.equal(await exited(run, 120_000), 0, `kubeloop run after SIGINT:\n${run.output()}`);

  const traps: string[] = [];
  await client.create(Latch, latch("after-the-run", 1)).catch((err: Error) => {
    traps.push(`creating a Latch: ${err.message}`);
  });
  await client.get(ValidatingWebhookConfiguration, name).then(
    (left) =>
      traps.push(`the run's configuration is still there, calling ${left.webhooks?.[0]?.clientConfig.url}`),
    (err: unknown) => assert.ok(err instanceof NotFoundError, String(err)),
  );
  // The conversion calls the operator's Service, as deployed: it fails loudly until one serves it.
  const crd = await client.get(CustomResourceDefinition, `latches.${group}`);
  const converting = crd.spec.conversion?.webhook?.clientConfig;
  const service = { name: `${name}-webhook-service`, namespace, path: "/convert", port: 443 };
  if (converting?.url) traps.push(`the CRD still converts through ${converting.url}`);
  else assert.deepEqual(converting, { service }, "the CRD's conversion once the run stopped");

  // The deployed configuration applies cleanly over what the run left (kubectl's default apply).
  const config = join(dir, "config");
  const generate = kubeloop(
    ["generate", "--operator=operator.ts", `--out=${config}`, "--webhook-certs=self"],
    dir,
  );
  assert.equal(await exited(generate, 120_000), 0, generate.output());
  onCleanup(t, () =>
    kubectl(["delete", "-k", config, "--ignore-not-found", "--wait=false"], { allowFail: true }),
  );
  const applied = await kubectl(["apply", "-k", config], { allowFail: true });
  const refusals = applied.stderr.split("\n").filter((line) => /is invalid|^error/i.test(line));
  if (applied.code !== 0) traps.push(`kubectl apply -k config: ${refusals.join("\n") || applied.stderr}`);
  assert.deepEqual(traps, [], traps.join("\n"));
});
