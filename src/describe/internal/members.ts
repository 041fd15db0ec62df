/**
 * The children a hub object has in member clusters: the clusters of the hub's kubeconfig Secrets
 * in a namespace (read once, as the fleet's provider would find them), and in each, the objects
 * of any kind labelled with the object's uid (`kubeloop.dev/hub-owner-uid`, which `withHubOwner`
 * stamps in place of an owner reference), across the member. A member that cannot be read is
 * reported with why, and the others are still shown.
 */
import type { KubeObject } from "../../api/index.ts";
import { Client } from "../../client/index.ts";
import {
  hubChildrenSelector,
  kubeconfigSecretClusters,
  type SecretCluster,
} from "../../multicluster/index.ts";
import { type ListScope, type SkippedResource, selectedObjects } from "./tree.ts";

/** What one member cluster holds of a hub object's children. */
export interface MemberObjects {
  /** The member: its kubeconfig Secret's name. */
  readonly cluster: string;
  readonly objects: readonly KubeObject[];
  readonly skipped: readonly SkippedResource[];
  /** Why the member could not be read, when it could not. */
  readonly error?: string;
}

/** `root`'s children in each member cluster of the kubeconfig Secrets in `fleetNamespace` of `hub`. */
export async function memberObjects(
  hub: Client,
  root: KubeObject,
  fleetNamespace: string,
  scope: Pick<ListScope, "pageSize" | "signal">,
): Promise<MemberObjects[]> {
  const clusters = await kubeconfigSecretClusters({ client: hub, namespace: fleetNamespace });
  const selected = { ...scope, namespace: undefined, labelSelector: hubChildrenSelector(root) };
  return Promise.all(clusters.map((cluster) => objectsIn(cluster, selected)));
}

async function objectsIn(cluster: SecretCluster, scope: ListScope): Promise<MemberObjects> {
  const none = { cluster: cluster.name, objects: [], skipped: [] };
  if ("error" in cluster) return { ...none, error: cluster.error };
  const client = new Client(cluster.connection);
  try {
    return { cluster: cluster.name, ...(await selectedObjects(client, scope)) };
  } catch (err) {
    return { ...none, error: err instanceof Error ? err.message : String(err) };
  } finally {
    await client.close();
  }
}
