/**
 * @module cluster
 *
 * The local control plane: etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok
 * as fake kubelets, built from their Go modules once per machine ({@link ensureAssets}) and started
 * by {@link startCluster} with a PKI, ports and run directory of its own, so several clusters can
 * run at once; {@link startMemberClusters} starts cheap member clusters for multi-cluster tests
 * (a kube-apiserver each on one etcd). `kubeloop cluster up`, the demo, the end-to-end tests and the benchmarks run on it.
 *
 * Not for production clusters: it is the embedded default for tests, demos and benchmarks.
 *
 * @example
 * ```ts
 * import { startCluster } from "kubeloop/cluster";
 *
 * const cluster = await startCluster({ nodes: 2 });
 * try {
 *   const { stdout } = await cluster.kubectl(["get", "nodes"]);
 *   console.log(stdout);
 * } finally {
 *   await cluster.stop();
 * }
 * ```
 */

export type { KeyPair, LeafRequest } from "../tls/index.ts";
export { type Assets, cacheRoot, ensureAssets, type ProgressReporter } from "./assets.ts";
export {
  type Cluster,
  type ClusterComponents,
  type ClusterOptions,
  type KubectlResult,
  startCluster,
} from "./cluster.ts";
export type { ComponentName } from "./components.ts";
export { BuildError, StartError, ToolchainError } from "./errors.ts";
export { ensureHelm } from "./helm.ts";
export { buildKubeconfig, type KubeconfigDocument } from "./kubeconfig.ts";
export {
  type MemberCluster,
  type MemberClusterOptions,
  type MemberClusters,
  startMemberClusters,
} from "./members.ts";
export { type ControlPlaneVersions, versions } from "./versions.ts";
