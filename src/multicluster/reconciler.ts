/**
 * Reconcilers of a fleet: the reconcile context of a single cluster plus `ctx.cluster`, the
 * cluster the key belongs to (multicluster-runtime's `mcreconcile.Request.ClusterName`).
 */
import type { KubeObject } from "../api/index.ts";
import type { Action, ReconcileContext, Reconciler } from "../controller/index.ts";
import type { FleetCluster } from "./engaged.ts";

/** A reconcile context with the cluster of the key: `ctx.cluster.name`, its client and cache. */
export interface FleetReconcileContext<T extends KubeObject> extends ReconcileContext<T> {
  /** The cluster this key belongs to; its client is fenced once the cluster is disengaged. */
  readonly cluster: FleetCluster;
}

/** A reconciler that also gets `ctx.cluster`. */
export type FleetReconciler<T extends KubeObject> = (
  ctx: FleetReconcileContext<T>,
  // biome-ignore lint/suspicious/noConfusingVoidType: lets `async (ctx) => { ...; return; }` be a reconciler
) => Promise<Action | undefined | void>;

/**
 * The controller builder's reconciler for `reconcile` on `cluster`: the context gains
 * `ctx.cluster`, everything else stays as the builder made it (read lazily, as there).
 *
 * @example
 * ```ts
 * const fleet = new Fleet({
 *   name: "copier",
 *   providers: [provider],
 *   setup: (manager, cluster) =>
 *     controller(manager)
 *       .for(ConfigMap)
 *       .reconcile(
 *         inCluster(cluster, async (ctx) => {
 *           ctx.log.info({ cluster: ctx.cluster.name }, "reconciled");
 *         }),
 *       ),
 * });
 * ```
 */
export function inCluster<T extends KubeObject>(
  cluster: FleetCluster,
  reconcile: FleetReconciler<T>,
): Reconciler<T> {
  return (ctx) => reconcile(Object.create(ctx, { cluster: { value: cluster, enumerable: true } }));
}
