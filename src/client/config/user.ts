import { isAbsolute, resolve } from "node:path";
import type { z } from "zod";
import type { Clock } from "../../clock/index.ts";
import { type AuthSource, createCredentials, staticSource } from "./credentials.ts";
import { KubeconfigError, KubeconfigUnsupportedError } from "./errors.ts";
import { EXEC_API_VERSIONS, type ExecApiVersion, type ExecPlugin } from "./exec.ts";
import { execSource } from "./exec-source.ts";
import { type execSchema, fieldError, type Origin, type userSchema } from "./kubeconfig-entries.ts";
import { keyPairProblem, loadPem } from "./pem.ts";
import { tokenFileSource } from "./token-file.ts";
import type { ClientCertificate, Credentials, Env, TlsSettings } from "./types.ts";

type User = z.output<typeof userSchema>;
type Exec = z.output<typeof execSchema>;
type Headers = Record<string, string | readonly string[]>;

/** Everything {@link userCredentials} needs besides the user entry. */
export interface UserContext {
  readonly server: string;
  readonly tls: TlsSettings;
  /** `spec.cluster` for exec plugins that set `provideClusterInfo`. */
  readonly execClusterInfo: Readonly<Record<string, unknown>>;
  readonly env: Env;
  readonly clock: Clock;
  readonly execTimeoutMs: number;
}

/**
 * Builds the credentials of a kubeconfig user: client certificate, one of token / tokenFile /
 * basic auth / exec plugin, and impersonation. A token file is read once here so that a wrong
 * path fails at load time; an exec plugin first runs on the first `get()`.
 */
export async function userCredentials(origin: Origin, user: User, ctx: UserContext): Promise<Credentials> {
  if (user["auth-provider"]) {
    throw new KubeconfigUnsupportedError(
      origin.file,
      `${origin.where}.auth-provider ("${user["auth-provider"].name}") is a legacy auth provider, which kubeloop ` +
        "does not support; use an exec credential plugin instead (for example gke-gcloud-auth-plugin on GKE, " +
        "kubelogin on AKS or for OIDC)",
    );
  }
  const source = authSource(origin, user, ctx);
  const clientCertificate = await loadClientCertificate(origin, user);
  const headers = impersonationHeaders(origin, user);
  if (user.tokenFile) await source?.get();
  return createCredentials({ source, clientCertificate, headers, server: ctx.server, tls: ctx.tls });
}

function authSource(origin: Origin, user: User, ctx: UserContext): AuthSource | undefined {
  const methods = [
    user.token || user.tokenFile ? "token" : "",
    user.username || user.password ? "username/password" : "",
    user.exec ? "exec" : "",
  ].filter((m) => m !== "");
  if (methods.length > 1) {
    throw new KubeconfigError(
      origin.file,
      `${origin.where} sets ${methods.join(" and ")}; keep only one of these authentication methods`,
    );
  }
  if (user.tokenFile) {
    const path = resolve(origin.dir, user.tokenFile);
    return tokenFileSource({
      path,
      clock: ctx.clock,
      error: (reason, cause) => fieldError(origin, "tokenFile", `names ${path}, which ${reason}`, cause),
    });
  }
  if (user.token) return staticSource({ authorization: `Bearer ${user.token}` });
  if (user.username || user.password) {
    const basic = Buffer.from(`${user.username ?? ""}:${user.password ?? ""}`).toString("base64");
    return staticSource({ authorization: `Basic ${basic}` });
  }
  if (user.exec) {
    return execSource(execPlugin(origin, user.exec, ctx), { clock: ctx.clock, timeoutMs: ctx.execTimeoutMs });
  }
  return undefined;
}

async function loadClientCertificate(origin: Origin, user: User): Promise<ClientCertificate | undefined> {
  const cert = await loadPem(
    origin,
    "client-certificate",
    { file: user["client-certificate"], data: user["client-certificate-data"] },
    "certificate",
  );
  const key = await loadPem(
    origin,
    "client-key",
    { file: user["client-key"], data: user["client-key-data"] },
    "private key",
  );
  const set = (field: string) => (user[`${field}-data` as keyof User] ? `${field}-data` : field);
  if (cert && key) {
    const mismatch = keyPairProblem(cert, key);
    if (mismatch) throw fieldError(origin, set("client-key"), mismatch);
    return { cert, key };
  }
  if (cert)
    throw fieldError(origin, set("client-certificate"), "is set without client-key(-data); add the key");
  if (key)
    throw fieldError(
      origin,
      set("client-key"),
      "is set without client-certificate(-data); add the certificate",
    );
  return undefined;
}

function impersonationHeaders(origin: Origin, user: User): Headers {
  const extra = Object.entries(user["as-user-extra"] ?? {});
  if (!user.as) {
    if (user["as-groups"].length > 0 || user["as-uid"] || extra.length > 0) {
      throw fieldError(
        origin,
        "as",
        "is not set, but as-groups, as-uid or as-user-extra is; impersonation needs a user",
      );
    }
    return {};
  }
  const headers: Headers = { "impersonate-user": user.as };
  if (user["as-groups"].length > 0) headers["impersonate-group"] = Object.freeze([...user["as-groups"]]);
  if (user["as-uid"]) headers["impersonate-uid"] = user["as-uid"];
  for (const [key, values] of extra)
    headers[`impersonate-extra-${escapeHeaderKey(key)}`] = Object.freeze([...values]);
  return headers;
}

/** Percent-encodes what a header name may not hold, as client-go does for impersonation extras. */
function escapeHeaderKey(key: string): string {
  return [...Buffer.from(key, "utf8")]
    .map((byte) => {
      const char = String.fromCharCode(byte);
      return /^[A-Za-z0-9!#$&'*+\-.^_`|~]$/.test(char)
        ? char
        : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
    })
    .join("");
}

function execPlugin(origin: Origin, exec: Exec, ctx: UserContext): ExecPlugin {
  if (!(EXEC_API_VERSIONS as readonly string[]).includes(exec.apiVersion)) {
    throw fieldError(
      origin,
      "exec.apiVersion",
      `is "${exec.apiVersion}"; use ${EXEC_API_VERSIONS.join(" or ")} (v1alpha1 was removed from Kubernetes)`,
    );
  }
  if (exec.interactiveMode === "Always") {
    throw new KubeconfigUnsupportedError(
      origin.file,
      `${origin.where}.exec.interactiveMode is Always, but kubeloop runs without a terminal, so the plugin could ` +
        "never prompt; set interactiveMode to IfAvailable or Never, or use a plugin that works non-interactively",
    );
  }
  const hasDirectory = /[/\\]/.test(exec.command);
  return {
    apiVersion: exec.apiVersion as ExecApiVersion,
    command: exec.command,
    executable: hasDirectory && !isAbsolute(exec.command) ? resolve(origin.dir, exec.command) : exec.command,
    args: exec.args,
    env: { ...ctx.env, ...Object.fromEntries(exec.env.map((e) => [e.name, e.value])) },
    ...(exec.provideClusterInfo ? { cluster: ctx.execClusterInfo } : {}),
    ...(exec.installHint ? { installHint: exec.installHint } : {}),
    label: `exec plugin "${exec.command}" of ${origin.where.replace(/\.user$/, "")} in kubeconfig ${origin.file}`,
  };
}
