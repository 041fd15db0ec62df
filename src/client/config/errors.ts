import { KubeloopError } from "../../errors/index.ts";

const localCluster = "start a local cluster with `kubeloop cluster up`";

/**
 * No kubeconfig file was found: nothing in `KUBECONFIG` exists, an explicitly named file is
 * missing, or there is no `~/.kube/config`. Code `KL_KUBECONFIG_NOT_FOUND`.
 */
export class KubeconfigNotFoundError extends KubeloopError {
  /** The paths that were looked at, in order. */
  readonly searched: readonly string[];

  /** @param from - what named the paths: the `KUBECONFIG` variable, the `kubeconfig` option or the default. */
  constructor(searched: readonly string[], from: "KUBECONFIG" | "option" | "default") {
    const list = searched.map((p) => `\n  - ${p}`).join("");
    const fix =
      from === "option"
        ? `Pass the path of an existing file, or ${localCluster}.`
        : `Set KUBECONFIG to a kubeconfig file, or ${localCluster}.`;
    const where = from === "KUBECONFIG" ? "none of the files in KUBECONFIG exists" : "no such file";
    super("KL_KUBECONFIG_NOT_FOUND", `no kubeconfig found (${where}). Looked in:${list}\n${fix}`);
    this.searched = searched;
  }
}

/**
 * A kubeconfig file is unreadable or wrong: bad YAML, a missing or mistyped field, a context that
 * names an undefined user, bad base64, a referenced file that cannot be read. The message names
 * the file and the field. Code `KL_KUBECONFIG`.
 */
export class KubeconfigError extends KubeloopError {
  /** The kubeconfig file at fault. */
  readonly file: string;

  constructor(file: string, detail: string, options?: { cause?: unknown }) {
    super("KL_KUBECONFIG", `kubeconfig ${file}: ${detail}`, options);
    this.file = file;
  }
}

/**
 * A kubeconfig uses something kubeloop does not support: a legacy `auth-provider`, a
 * `proxy-url`, or an exec plugin that insists on a terminal. Code `KL_KUBECONFIG_UNSUPPORTED`.
 */
export class KubeconfigUnsupportedError extends KubeloopError {
  /** The kubeconfig file at fault. */
  readonly file: string;

  constructor(file: string, detail: string) {
    super("KL_KUBECONFIG_UNSUPPORTED", `kubeconfig ${file}: ${detail}`);
    this.file = file;
  }
}

/**
 * An exec credential plugin could not be started, failed, timed out or printed something that is
 * not a usable ExecCredential. Code `KL_EXEC_CREDENTIAL`.
 */
export class ExecCredentialError extends KubeloopError {
  /** The plugin's command as written in the kubeconfig. */
  readonly command: string;

  /** @param plugin - names the plugin, its user and its kubeconfig for the message. */
  constructor(command: string, plugin: string, detail: string, options?: { cause?: unknown }) {
    super("KL_EXEC_CREDENTIAL", `${plugin}: ${detail}`, options);
    this.command = command;
  }
}

/**
 * In-cluster configuration is unavailable: not running in a pod, or the service-account files are
 * missing or empty. Code `KL_IN_CLUSTER`.
 */
export class InClusterError extends KubeloopError {
  constructor(detail: string, options?: { cause?: unknown }) {
    super("KL_IN_CLUSTER", `in-cluster config: ${detail}`, options);
  }
}
