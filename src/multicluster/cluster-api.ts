/**
 * The Cluster API provider: clusters are Cluster API `Cluster` objects of the hub, engaged once
 * their control plane is ready, through the kubeconfig Secret Cluster API writes for each
 * (`<name>-kubeconfig`, key `value`). A Cluster deleted, or no longer ready, is disengaged.
 */
import type { Logger } from "pino";
import pino from "pino";
import { type KubeObject, resourceType, Secret } from "../api/index.ts";
import type { Client } from "../client/index.ts";
import { KubeconfigTexts } from "./kubeconfig.ts";
import type { ClusterProvider, ClusterSink } from "./provider.ts";
import { watchObjects } from "./watched.ts";

/** The parts of a Cluster API `Cluster` (v1beta1 or v1beta2) this provider reads. */
export interface CapiClusterObject extends KubeObject {
  status?: {
    /** v1beta1: the control plane answers. */
    controlPlaneReady?: boolean;
    /** v1beta2: the control plane was initialized. */
    initialization?: { controlPlaneInitialized?: boolean };
    conditions?: { type: string; status: string }[];
  };
}

/** Options of {@link clusterApiProvider}. */
export interface ClusterApiOptions {
  /** A client of the hub (the management cluster). */
  client: Client;
  /** Watch Clusters of this namespace only. Default: all namespaces. */
  namespace?: string;
  /** The `Cluster` API version served. Default `cluster.x-k8s.io/v1beta1`. */
  apiVersion?: string;
  /** Logger for Clusters whose kubeconfig cannot be read. Default: silent. */
  logger?: Logger;
}

/**
 * Discovers clusters from Cluster API `Cluster` objects; a cluster's name is `<namespace>/<name>`.
 * Its kubeconfig Secret is read when the Cluster is ready and at each of its updates (a relist
 * re-delivers every Cluster, so a rotated kubeconfig is picked up within the relist period).
 *
 * @example
 * ```ts
 * const provider = clusterApiProvider({ client: management, namespace: "clusters" });
 * ```
 */
export function clusterApiProvider(options: ClusterApiOptions): ClusterProvider {
  const type = resourceType<CapiClusterObject>(
    options.apiVersion ?? "cluster.x-k8s.io/v1beta1",
    "Cluster",
    "clusters",
    true,
  );
  const logger = options.logger ?? pino({ level: "silent" });
  return {
    name: "cluster-api",
    run(sink: ClusterSink, signal: AbortSignal) {
      const texts = new KubeconfigTexts(sink, logger);
      const follow = (cluster: CapiClusterObject) =>
        texts.track(
          follows(options.client, texts, cluster).catch((err: unknown) =>
            logger.warn(
              { err, cluster: clusterName(cluster) },
              "kubeconfig Secret of a ready Cluster not read",
            ),
          ),
        );
      return watchObjects(
        options.client,
        type,
        { namespace: options.namespace },
        {
          onAdd: follow,
          onUpdate: (_old, cluster) => follow(cluster),
          onDelete: (cluster) => texts.delete(clusterName(cluster), "Cluster deleted"),
        },
        { signal, logger, ready: () => texts.whenIdle(() => sink.ready()) },
      );
    },
  };
}

/** Whether a Cluster's control plane is ready, in either API version's words. */
export function controlPlaneReady(cluster: CapiClusterObject): boolean {
  const status = cluster.status;
  return (
    status?.controlPlaneReady === true ||
    status?.initialization?.controlPlaneInitialized === true ||
    (status?.conditions ?? []).some((c) => c.type === "ControlPlaneReady" && c.status === "True")
  );
}

/** `<namespace>/<name>`. */
function clusterName(cluster: KubeObject): string {
  return `${cluster.metadata.namespace}/${cluster.metadata.name}`;
}

/** Engages a ready Cluster with its kubeconfig Secret's `value`; disengages one not ready. */
async function follows(client: Client, texts: KubeconfigTexts, cluster: CapiClusterObject): Promise<void> {
  const name = clusterName(cluster);
  if (!controlPlaneReady(cluster)) return texts.delete(name, "Cluster control plane not ready");
  const secret = await client.get(Secret, `${cluster.metadata.name}-kubeconfig`, {
    namespace: cluster.metadata.namespace,
  });
  const value = secret.data?.value;
  if (value === undefined) return texts.delete(name, 'kubeconfig Secret has no key "value"');
  await texts.set(name, Buffer.from(value, "base64").toString("utf8"));
}
