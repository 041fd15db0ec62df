/**
 * @module multicluster
 *
 * Controllers across many clusters, as kubernetes-sigs/multicluster-runtime runs them in Go.
 * {@link ClusterProvider}s discover clusters at run time — kubeconfig Secrets of a hub namespace
 * ({@link kubeconfigSecretProvider}), a static list of kubeconfig files ({@link staticProvider}),
 * Cluster API `Cluster`s ({@link clusterApiProvider}), or one of your own — and a {@link Fleet}
 * engages each: a client, an informer cache and the controllers its `setup` builds with the usual
 * builder (`for` / `owns` / `watches`), on a manager of the cluster's own; {@link inCluster} gives
 * a reconciler `ctx.cluster`. A cluster removed by its provider, or failing its probes (401/403,
 * unreachable), is disengaged: writes fenced, reconciles drained, informers stopped and dropped.
 * Each engaged cluster's manager metrics are on the fleet's registry labelled `cluster`; given a
 * manager (`manager` in {@link FleetOptions}), its `/metrics`, `/readyz` and live page show the fleet.
 *
 * With `replicas` ({@link FleetReplicasOptions}), the clusters are spread over the operator's
 * replicas: each runs the providers and engages only the clusters whose Lease (one per cluster, in
 * the hub) it holds, its fair share; a replica that stops or dies has its clusters taken over, and
 * no cluster is engaged by two replicas at once.
 *
 * Owner references cannot cross clusters: a child a hub object's controller writes in a member
 * carries labels naming its owner instead ({@link HUB_OWNER_LABELS}, {@link withHubOwner}), and
 * {@link MemberChildren} does the rest — a watch on each member queueing a changed child's owner
 * on the hub's controller (drift repair), and the deletion of an owner's children in every engaged
 * member for the hub's finalizer, or in the members it no longer selects.
 *
 * @example
 * ```ts
 * const fleet = new Fleet({
 *   name: "labeller",
 *   providers: [kubeconfigSecretProvider({ client: hub, namespace: "fleet" })],
 *   setup: (manager, cluster) =>
 *     controller(manager)
 *       .for(ConfigMap)
 *       .reconcile(inCluster(cluster, async (ctx) => ctx.log.info({ cluster: ctx.cluster.name }, "seen"))),
 * });
 * await fleet.start(signal);
 * ```
 */

export { type CapiClusterObject, type ClusterApiOptions, clusterApiProvider } from "./cluster-api.ts";
export type { FleetCluster, FleetSetup } from "./engaged.ts";
export { Fleet, type FleetOptions } from "./fleet.ts";
export {
  HUB_OWNER_LABELS,
  hubChildrenSelector,
  hubOwnerKey,
  hubOwnerLabels,
  withHubOwner,
} from "./hub-owner.ts";
export { MemberChildren, type MemberChildrenOptions } from "./member-children.ts";
export { FLEET_METRICS } from "./metrics.ts";
export type { ClusterProvider, ClusterSink } from "./provider.ts";
export { type FleetReconcileContext, type FleetReconciler, inCluster } from "./reconciler.ts";
export type { FleetReplicasOptions } from "./replicas.ts";
export {
  KUBECONFIG_SECRET_LABEL,
  type KubeconfigSecretOptions,
  kubeconfigSecretClusters,
  kubeconfigSecretProvider,
  type SecretCluster,
} from "./secrets.ts";
export type { ClusterState, Probe, ProbeOptions } from "./slot.ts";
export { type StaticProviderOptions, staticProvider } from "./static.ts";
