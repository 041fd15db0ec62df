import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type Clock, systemClock } from "../../clock/index.ts";
import { createCredentials } from "./credentials.ts";
import { InClusterError } from "./errors.ts";
import { fileExists } from "./fs.ts";
import { pemProblem } from "./pem.ts";
import { tokenFileSource } from "./token-file.ts";
import type { ClusterConnection, Env } from "./types.ts";

/** Where Kubernetes mounts a pod's service-account token, CA and namespace. */
export const DEFAULT_SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/** Options of {@link loadInCluster}. */
export interface InClusterOptions {
  /** Environment to read `KUBERNETES_SERVICE_HOST` and `_PORT` from; defaults to `process.env`. */
  env?: Env;
  /** Directory holding `token`, `ca.crt` and `namespace`; defaults to {@link DEFAULT_SERVICE_ACCOUNT_DIR}. */
  serviceAccountDir?: string;
  /** Clock for token rechecks; defaults to the system clock. */
  clock?: Clock;
}

const mountHint =
  "check that the pod mounts its service-account token (automountServiceAccountToken is not false)";

/** True when running in a pod: the service host and port are set and the token file exists. */
export async function isInCluster(options: InClusterOptions = {}): Promise<boolean> {
  const env = options.env ?? process.env;
  const dir = options.serviceAccountDir ?? DEFAULT_SERVICE_ACCOUNT_DIR;
  return (
    Boolean(env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT) &&
    (await fileExists(join(dir, "token")))
  );
}

/**
 * Loads the pod's own connection: the API server from `KUBERNETES_SERVICE_HOST`/`_PORT`, and the
 * service account's `ca.crt`, `namespace` (else `"default"`) and `token`. The token is read
 * again at most every 60 s, or after `invalidate()`, because bound tokens rotate.
 *
 * @throws InClusterError when not in a pod, or when the token or CA is missing or empty.
 */
export async function loadInCluster(options: InClusterOptions = {}): Promise<ClusterConnection> {
  const env = options.env ?? process.env;
  const dir = options.serviceAccountDir ?? DEFAULT_SERVICE_ACCOUNT_DIR;
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) {
    throw new InClusterError(
      "KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set, so this is not running in a pod; " +
        "outside a cluster, load a kubeconfig instead",
    );
  }
  const server = `https://${host.includes(":") ? `[${host}]` : host}:${port}`;
  const tls = { ca: await readCa(join(dir, "ca.crt")), insecure: false };
  const tokenPath = join(dir, "token");
  const source = tokenFileSource({
    path: tokenPath,
    clock: options.clock ?? systemClock,
    error: (reason, cause) =>
      new InClusterError(`the service-account token ${tokenPath} ${reason}; ${mountHint}`, { cause }),
  });
  await source.get();
  return {
    server,
    namespace: await readNamespace(join(dir, "namespace")),
    source: "in-cluster",
    tls,
    credentials: createCredentials({ source, server, tls }),
  };
}

async function readCa(path: string): Promise<string> {
  let ca: string;
  try {
    ca = await readFile(path, "utf8");
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? err;
    throw new InClusterError(`the cluster CA ${path} cannot be read (${reason}); ${mountHint}`, {
      cause: err,
    });
  }
  const problem = pemProblem(ca, "certificate");
  if (problem) throw new InClusterError(`the cluster CA ${path} ${problem}; ${mountHint}`);
  return ca;
}

async function readNamespace(path: string): Promise<string> {
  try {
    return (await readFile(path, "utf8")).trim() || "default";
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return "default";
    throw new InClusterError(`the namespace file ${path} cannot be read`, { cause: err });
  }
}
