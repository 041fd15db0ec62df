import { spawn } from "node:child_process";
import { z } from "zod";
import type { Clock } from "../../clock/index.ts";
import type { AuthParts } from "./credentials.ts";
import { ExecCredentialError } from "./errors.ts";
import { describeIssue } from "./kubeconfig-entries.ts";
import { keyPairProblem, pemProblem } from "./pem.ts";
import type { Env } from "./types.ts";

/** The ExecCredential versions kubeloop speaks. */
export const EXEC_API_VERSIONS = [
  "client.authentication.k8s.io/v1",
  "client.authentication.k8s.io/v1beta1",
] as const;

/** One of {@link EXEC_API_VERSIONS}. */
export type ExecApiVersion = (typeof EXEC_API_VERSIONS)[number];

/** An exec credential plugin, ready to run. */
export interface ExecPlugin {
  readonly apiVersion: ExecApiVersion;
  /** The command as the kubeconfig writes it (for messages). */
  readonly command: string;
  /** The executable to spawn: `command`, resolved against the kubeconfig's directory when relative. */
  readonly executable: string;
  readonly args: readonly string[];
  /** The complete environment of the plugin, `KUBERNETES_EXEC_INFO` aside. */
  readonly env: Env;
  /** `spec.cluster` of the ExecCredential input, when the kubeconfig sets `provideClusterInfo`. */
  readonly cluster?: Readonly<Record<string, unknown>>;
  readonly installHint?: string;
  /** Names the plugin, its user and its kubeconfig, to open error messages. */
  readonly label: string;
}

/** What one plugin run produced. */
export interface ExecOutput {
  readonly parts: AuthParts;
  /** From `status.expirationTimestamp`, in epoch milliseconds; absent means it does not expire. */
  readonly expiresAt?: number;
}

const STDERR_TAIL = 2000;

const outputSchema = z.object({
  apiVersion: z.string(),
  kind: z.literal("ExecCredential"),
  status: z.object({
    token: z.string().nullish(),
    clientCertificateData: z.string().nullish(),
    clientKeyData: z.string().nullish(),
    expirationTimestamp: z.string().nullish(),
  }),
});

function pluginError(plugin: ExecPlugin, detail: string, cause?: unknown): ExecCredentialError {
  return new ExecCredentialError(plugin.command, plugin.label, detail, { cause });
}

/** Runs the plugin once, non-interactively, and parses what it prints; kills it after `timeoutMs`. */
export function runExecPlugin(
  plugin: ExecPlugin,
  options: { clock: Clock; timeoutMs: number },
): Promise<ExecOutput> {
  const fail = (detail: string, cause?: unknown) => pluginError(plugin, detail, cause);
  const spec = { interactive: false, ...(plugin.cluster ? { cluster: plugin.cluster } : {}) };
  const info = JSON.stringify({ apiVersion: plugin.apiVersion, kind: "ExecCredential", spec });

  return new Promise((resolve, reject) => {
    let settled = false;
    let timedOut = false;
    const settle = (outcome: () => ExecOutput) => {
      if (settled) return;
      settled = true;
      timer.cancel();
      try {
        resolve(outcome());
      } catch (err) {
        reject(err);
      }
    };
    const child = spawn(plugin.executable, plugin.args, {
      env: { ...plugin.env, KUBERNETES_EXEC_INFO: info },
      stdio: ["ignore", "pipe", "pipe"],
      windowsHide: true,
    });
    const timer = options.clock.setTimer(options.timeoutMs, () => {
      timedOut = true;
      child.kill("SIGKILL");
    });
    const stdout: Buffer[] = [];
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString("utf8")).slice(-STDERR_TAIL);
    });
    child.on("error", (err: NodeJS.ErrnoException) => {
      settle(() => {
        const hint = plugin.installHint ? `\n${plugin.installHint.trim()}` : "";
        throw fail(
          `could not be started (${err.code ?? err.message}); check that it is installed and on PATH${hint}`,
          err,
        );
      });
    });
    child.on("close", (code, signal) => {
      settle(() => {
        const said = stderr.trim() ? `; it said:\n${stderr.trim()}` : "";
        if (timedOut) {
          throw fail(
            `did not finish within ${options.timeoutMs} ms and was killed. It runs without a terminal, so it ` +
              `must not wait for input; raise execTimeoutMs if it is just slow${said}`,
          );
        }
        if (code !== 0) {
          throw fail(`exited with ${code === null ? `signal ${signal}` : `code ${code}`}${said}`);
        }
        return parseExecCredential(plugin, Buffer.concat(stdout).toString("utf8"));
      });
    });
  });
}

/** Parses and checks the ExecCredential a plugin printed. */
export function parseExecCredential(plugin: ExecPlugin, stdout: string): ExecOutput {
  const fail = (detail: string, cause?: unknown) => pluginError(plugin, detail, cause);
  let raw: unknown;
  try {
    raw = JSON.parse(stdout);
  } catch (err) {
    const start = JSON.stringify(stdout.trim().slice(0, 80));
    throw fail(
      `printed output that is not JSON (it began ${start}); it must print one ExecCredential object`,
      err,
    );
  }
  const result = outputSchema.safeParse(raw);
  if (!result.success) {
    throw fail(`printed an invalid ExecCredential: ${describeIssue(result.error.issues[0], "")}`);
  }
  const { apiVersion, status } = result.data;
  if (apiVersion !== plugin.apiVersion) {
    throw fail(
      `printed apiVersion "${apiVersion}" but the kubeconfig asks for "${plugin.apiVersion}" in exec.apiVersion`,
    );
  }
  const problem = statusProblem(status);
  if (problem) throw fail(problem);
  const { token, clientCertificateData: cert, clientKeyData: key, expirationTimestamp } = status;
  const expiresAt = expirationTimestamp ? Date.parse(expirationTimestamp) : undefined;
  const parts: AuthParts = {
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    ...(cert && key ? { clientCertificate: { cert, key } } : {}),
  };
  return expiresAt === undefined ? { parts } : { parts, expiresAt };
}

/** What is wrong with an ExecCredential status, if anything. */
function statusProblem(status: z.output<typeof outputSchema>["status"]): string | undefined {
  const { token, clientCertificateData: cert, clientKeyData: key, expirationTimestamp: expiry } = status;
  if (!cert !== !key)
    return "printed only one of status.clientCertificateData and status.clientKeyData; both are needed";
  if (!token && !cert)
    return "printed neither status.token nor status.clientCertificateData and clientKeyData";
  const certProblem = cert && pemProblem(cert, "certificate");
  if (certProblem) return `printed a status.clientCertificateData that ${certProblem}`;
  const keyProblem = key && pemProblem(key, "private key");
  if (keyProblem) return `printed a status.clientKeyData that ${keyProblem}`;
  const pairProblem = cert && key && keyPairProblem(cert, key);
  if (pairProblem) return `printed a status.clientKeyData that ${pairProblem}`;
  if (expiry && Number.isNaN(Date.parse(expiry))) {
    return `printed status.expirationTimestamp "${expiry}", not an RFC 3339 time`;
  }
  return undefined;
}
