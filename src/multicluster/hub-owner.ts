/**
 * What replaces owner references across clusters. An owner reference cannot point from a member
 * cluster to an object of the hub (the garbage collector of the member knows nothing of the hub),
 * so a child written in a member carries labels naming its owner in the hub instead
 * ({@link HUB_OWNER_LABELS}): its kind, namespace, name and uid. The labels let a member's watch
 * find the owner to queue, a finalizer in the hub find the children to delete, and
 * `kubeloop describe --fleet-namespace` show them under their cluster.
 */
import { type KubeObject, type ObjectKey, objectKey } from "../api/index.ts";

/**
 * The labels of a child in a member cluster naming its owner in the hub: `kind` (the owner's kind,
 * without its group: a label value is at most 63 characters), `namespace` (absent for a
 * cluster-scoped owner), `name` and `uid` (which tells an owner deleted and created again from
 * the one before it).
 *
 * @example
 * ```ts
 * const children = await member.client.list(ConfigMap, {
 *   labelSelector: `${HUB_OWNER_LABELS.name}=settings`,
 * });
 * ```
 */
export const HUB_OWNER_LABELS = Object.freeze({
  kind: "kubeloop.dev/hub-owner-kind",
  namespace: "kubeloop.dev/hub-owner-namespace",
  name: "kubeloop.dev/hub-owner-name",
  uid: "kubeloop.dev/hub-owner-uid",
});

/**
 * The labels naming `owner` (an object of the hub) on a child in a member cluster.
 *
 * @example
 * ```ts
 * hubOwnerLabels(settings);
 * // { "kubeloop.dev/hub-owner-kind": "FleetConfigMap", "kubeloop.dev/hub-owner-namespace": "apps",
 * //   "kubeloop.dev/hub-owner-name": "settings", "kubeloop.dev/hub-owner-uid": "6f1c…" }
 * ```
 */
export function hubOwnerLabels(owner: KubeObject): Record<string, string> {
  const { namespace, name = "", uid = "" } = owner.metadata;
  return {
    [HUB_OWNER_LABELS.kind]: owner.kind,
    ...(namespace ? { [HUB_OWNER_LABELS.namespace]: namespace } : {}),
    [HUB_OWNER_LABELS.name]: name,
    [HUB_OWNER_LABELS.uid]: uid,
  };
}

/**
 * `child` (a new object) with the labels naming `owner` added to its own: what stands in for
 * `setControllerReference` when the child lives in a member cluster.
 *
 * @example
 * ```ts
 * const desired = withHubOwner(settings, {
 *   apiVersion: "v1",
 *   kind: "ConfigMap",
 *   metadata: { name: "settings", namespace: "apps" },
 *   data: settings.spec.data,
 * });
 * ```
 */
export function withHubOwner<C extends KubeObject>(owner: KubeObject, child: C): C {
  const labels = { ...child.metadata.labels, ...hubOwnerLabels(owner) };
  return { ...child, metadata: { ...child.metadata, labels } };
}

/**
 * The key in the hub of `child`'s owner when the labels name an owner of kind `kind`, else
 * undefined: what a member's watch queues on the hub's controller.
 *
 * @example
 * ```ts
 * hubOwnerKey(child, "FleetConfigMap"); // "apps/settings"
 * ```
 */
export function hubOwnerKey(child: KubeObject, kind: string): ObjectKey | undefined {
  const labels = child.metadata.labels ?? {};
  const name = labels[HUB_OWNER_LABELS.name];
  if (labels[HUB_OWNER_LABELS.kind] !== kind || !name) return undefined;
  return objectKey(labels[HUB_OWNER_LABELS.namespace], name);
}

/**
 * The label selector of `owner`'s children in a member cluster: by its uid, so that the children
 * of an earlier object of the same name are not taken for its own.
 *
 * @example
 * ```ts
 * const children = await member.client.list(ConfigMap, { labelSelector: hubChildrenSelector(settings) });
 * ```
 */
export function hubChildrenSelector(owner: Pick<KubeObject, "metadata">): string {
  return `${HUB_OWNER_LABELS.uid}=${owner.metadata.uid ?? ""}`;
}
