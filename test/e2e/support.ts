/**
 * Helpers shared by end-to-end tests: the cluster that `test/run.ts` started, kubectl against it,
 * a fresh namespace per test, and polling with a deadline.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { promisify } from "node:util";
import pino, { type Logger } from "pino";
import { Client, loadKubeconfig } from "../../src/client/index.ts";

const execFileAsync = promisify(execFile);

/** The run's kubeconfig path; fails clearly when the file was not started through `test/run.ts`. */
export function kubeconfigPath(): string {
  const path = process.env.KUBECONFIG;
  if (!path || !process.env.KUBELOOP_E2E_BIN) {
    throw new Error(
      "end-to-end tests run through `npm run test:e2e` (test/run.ts), which starts the cluster",
    );
  }
  return path;
}

/** Path of a control-plane binary built for this run (`kubectl`, `kube-apiserver`, ...). */
export function binary(name: string): string {
  kubeconfigPath();
  return join(process.env.KUBELOOP_E2E_BIN as string, name);
}

/** Runs the built kubectl; rejects with its stderr when it exits non-zero unless `allowFail`. */
export async function kubectl(
  args: string[],
  opts: { input?: string; allowFail?: boolean; kubeconfig?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const run = execFileAsync(
    binary("kubectl"),
    [`--kubeconfig=${opts.kubeconfig ?? kubeconfigPath()}`, ...args],
    {
      maxBuffer: 64 << 20,
      timeout: 120_000,
    },
  );
  if (opts.input !== undefined) run.child.stdin?.end(opts.input);
  try {
    const { stdout, stderr } = await run;
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    const result = {
      code: typeof e.code === "number" ? e.code : 1,
      stdout: e.stdout ?? "",
      stderr: e.stderr ?? "",
    };
    if (opts.allowFail) return result;
    throw new Error(`kubectl ${args.join(" ")} failed (${result.code}): ${result.stderr || result.stdout}`);
  }
}

/** `kubectl ... -o json`, parsed. */
export async function kubectlJson<T = unknown>(args: string[]): Promise<T> {
  return JSON.parse((await kubectl([...args, "-o", "json"])).stdout) as T;
}

/**
 * Creates a namespace for one test and deletes it (without waiting) when the test ends.
 * The name is derived from the test name plus a random suffix.
 */
export async function testNamespace(t: TestContext): Promise<string> {
  const slug = t.name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 40);
  const name = `${slug || "test"}-${randomBytes(3).toString("hex")}`.replace(/^-/, "");
  await kubectl(["create", "namespace", name]);
  t.after(() => kubectl(["delete", "namespace", name, "--wait=false"], { allowFail: true }));
  return name;
}

/**
 * Polls `check` until it returns a value other than `undefined`/`false` (or stops throwing),
 * and returns that value. Fails after `timeoutMs` with the last error or a description.
 */
export async function eventually<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  opts: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const detail = lastError instanceof Error ? `: ${lastError.message}` : "";
      throw new Error(
        `timed out after ${opts.timeoutMs ?? 30_000} ms waiting for ${opts.what ?? "condition"}${detail}`,
      );
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 250));
  }
}

let sharedClient: Client | undefined;

/** A {@link Client} for the run's cluster (admin), shared by the tests of one file; unlimited rate. */
export async function testClient(): Promise<Client> {
  sharedClient ??= new Client(await loadKubeconfig({ kubeconfig: kubeconfigPath() }), {
    qps: Number.POSITIVE_INFINITY,
  });
  return sharedClient;
}

/** A quiet pino logger for managers under test (warnings and errors only, unless LOG_LEVEL says otherwise). */
export function testLogger(): Logger {
  return pino({ level: process.env.LOG_LEVEL ?? "warn" });
}
