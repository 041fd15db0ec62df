import { homedir } from "node:os";
import type { z } from "zod";
import { type Clock, systemClock } from "../../clock/index.ts";
import { KubeconfigError, KubeconfigUnsupportedError } from "./errors.ts";
import { DEFAULT_EXEC_TIMEOUT_MS } from "./exec-source.ts";
import {
  clusterSchema,
  contextSchema,
  fieldError,
  type Origin,
  parseEntry,
  userSchema,
} from "./kubeconfig-entries.ts";
import {
  locateKubeconfigs,
  type MergedKubeconfig,
  type NamedEntry,
  readKubeconfigs,
} from "./kubeconfig-files.ts";
import { loadPem } from "./pem.ts";
import type { ClusterConnection, Env, TlsSettings } from "./types.ts";
import { userCredentials } from "./user.ts";

/** Options of {@link loadKubeconfig}. */
export interface KubeconfigOptions {
  /** Kubeconfig file path(s) to read instead of `KUBECONFIG` or `~/.kube/config`; each must exist. */
  kubeconfig?: string | readonly string[];
  /** The context to use instead of `current-context`. */
  context?: string;
  /** Environment to read `KUBECONFIG` from and to start exec plugins with; defaults to `process.env`. */
  env?: Env;
  /** Home directory holding `.kube/config`; defaults to the user's. */
  homeDir?: string;
  /** Clock for token-file rechecks, exec expiry and exec timeouts; defaults to the system clock. */
  clock?: Clock;
  /** Limit on one exec-plugin run, in milliseconds; defaults to 60 s. */
  execTimeoutMs?: number;
}

const EXEC_CONFIG_EXTENSION = "client.authentication.k8s.io/exec";

/**
 * Loads a connection from kubeconfig files, merged like client-go: for each cluster, user and
 * context name the first file that defines it wins, and so does the first `current-context`.
 *
 * @throws KubeconfigNotFoundError when no file exists; KubeconfigError and
 * KubeconfigUnsupportedError naming the file and field at fault.
 */
export async function loadKubeconfig(options: KubeconfigOptions = {}): Promise<ClusterConnection> {
  const env = options.env ?? process.env;
  const files = await locateKubeconfigs({
    kubeconfig: options.kubeconfig,
    env,
    homeDir: options.homeDir ?? homedir(),
  });
  const config = await readKubeconfigs(files);
  const contextEntry = selectContext(config, options.context);
  const { value: context, origin } = parseEntry(contextSchema, contextEntry, "contexts");
  const clusterEntry = lookUp(config.clusters, "cluster", context.cluster, contextEntry);
  const userEntry = context.user ? lookUp(config.users, "user", context.user, contextEntry) : undefined;

  const cluster = parseEntry(clusterSchema, clusterEntry, "clusters");
  const { server, tls } = await clusterSettings(cluster.origin, cluster.value);
  const user = userEntry
    ? parseEntry(userSchema, userEntry, "users")
    : { value: userSchema.parse({}), origin };
  const credentials = await userCredentials(user.origin, user.value, {
    server,
    tls,
    execClusterInfo: execClusterInfo(server, tls, cluster.value),
    env,
    clock: options.clock ?? systemClock,
    execTimeoutMs: options.execTimeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS,
  });
  return {
    server,
    namespace: context.namespace ?? "default",
    contextName: contextEntry.name,
    source: "kubeconfig",
    tls,
    credentials,
  };
}

function selectContext(config: MergedKubeconfig, chosen: string | undefined): NamedEntry {
  const name = chosen ?? config.currentContext?.name;
  const known = `defined contexts: ${[...config.contexts.keys()].join(", ") || "none"}`;
  if (!name) {
    throw new KubeconfigError(
      config.files.join(", "),
      `no current-context is set and no context was chosen (${known}); ` +
        "run `kubectl config use-context NAME` or pass the context option",
    );
  }
  const entry = config.contexts.get(name);
  if (entry) return entry;
  const file = chosen ? config.files.join(", ") : (config.currentContext?.file ?? "");
  const how = chosen ? "the context option names" : "current-context is";
  throw new KubeconfigError(
    file,
    `${how} "${name}", which is not defined under contexts: (${known}). Choose a defined one ` +
      "(the context option, or `kubectl config use-context NAME`) or add it there",
  );
}

function lookUp(
  entries: ReadonlyMap<string, NamedEntry>,
  kind: "cluster" | "user",
  name: string | undefined,
  context: NamedEntry,
): NamedEntry {
  const entry = name ? entries.get(name) : undefined;
  if (entry) return entry;
  const field = `contexts[${JSON.stringify(context.name)}].context.${kind}`;
  const known = `defined ${kind}s: ${[...entries.keys()].join(", ") || "none"}`;
  const detail = name
    ? `names ${kind} "${name}", which is not defined under ${kind}s: (${known}). Add it there or fix ${field}`
    : `has no ${kind}. Set ${field} (${known})`;
  throw new KubeconfigError(context.file, `context "${context.name}" ${detail}`);
}

async function clusterSettings(
  origin: Origin,
  cluster: z.output<typeof clusterSchema>,
): Promise<{ server: string; tls: TlsSettings }> {
  if (cluster["proxy-url"]) {
    throw new KubeconfigUnsupportedError(
      origin.file,
      `${origin.where}.proxy-url is set (${cluster["proxy-url"]}), but proxies are not supported yet; ` +
        "remove proxy-url and reach the server directly (through a VPN or kubectl port-forward, say)",
    );
  }
  const server = checkServer(origin, cluster.server);
  const ca = await loadPem(
    origin,
    "certificate-authority",
    { file: cluster["certificate-authority"], data: cluster["certificate-authority-data"] },
    "certificate",
  );
  const insecure = cluster["insecure-skip-tls-verify"] ?? false;
  if (insecure && ca) {
    throw fieldError(
      origin,
      "insecure-skip-tls-verify",
      "is true while a certificate-authority is set; remove one of the two",
    );
  }
  const servername = cluster["tls-server-name"];
  return { server, tls: { ...(ca ? { ca } : {}), insecure, ...(servername ? { servername } : {}) } };
}

function checkServer(origin: Origin, server: string | undefined): string {
  if (!server) {
    throw fieldError(origin, "server", "is not set; set it to the API server's URL, like https://host:6443");
  }
  let url: URL | undefined;
  try {
    url = new URL(server);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== "https:" && url?.protocol !== "http:") {
    throw fieldError(origin, "server", `is "${server}", not an http(s) URL; write it like https://host:6443`);
  }
  return server.replace(/\/+$/, "");
}

/** `spec.cluster` of an ExecCredential input: the cluster as the plugin sees it. */
function execClusterInfo(
  server: string,
  tls: TlsSettings,
  cluster: z.output<typeof clusterSchema>,
): Record<string, unknown> {
  const config = cluster.extensions?.find((e) => e.name === EXEC_CONFIG_EXTENSION)?.extension;
  return {
    server,
    ...(tls.servername ? { "tls-server-name": tls.servername } : {}),
    ...(tls.insecure ? { "insecure-skip-tls-verify": true } : {}),
    ...(tls.ca ? { "certificate-authority-data": Buffer.from(tls.ca).toString("base64") } : {}),
    ...(config === undefined ? {} : { config }),
  };
}
