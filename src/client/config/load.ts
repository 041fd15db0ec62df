import { type InClusterOptions, isInCluster, loadInCluster } from "./in-cluster.ts";
import { type KubeconfigOptions, loadKubeconfig } from "./kubeconfig.ts";
import type { ClusterConnection, ConfigSource } from "./types.ts";

/** Options of {@link loadConfig}: those of both loaders, plus the choice between them. */
export interface LoadConfigOptions extends KubeconfigOptions, InClusterOptions {
  /**
   * Forces one loader. By default: explicit `kubeconfig` paths mean the kubeconfig, then
   * in-cluster when running in a pod, then the kubeconfig (`KUBECONFIG` or `~/.kube/config`).
   */
  source?: ConfigSource;
}

/**
 * Loads the connection to use: in-cluster inside a pod (service host set and the
 * service-account token present), a kubeconfig otherwise.
 */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<ClusterConnection> {
  const source = options.source ?? (await detectSource(options));
  return source === "in-cluster" ? loadInCluster(options) : loadKubeconfig(options);
}

async function detectSource(options: LoadConfigOptions): Promise<ConfigSource> {
  if (options.kubeconfig !== undefined) return "kubeconfig";
  return (await isInCluster(options)) ? "in-cluster" : "kubeconfig";
}
