/**
 * A FleetConfigMap's children: the ConfigMap it wants in each member cluster (its own namespace
 * and name, labelled with its owner), written when the member's cached copy differs and deleted
 * when the member is no longer selected or the owner goes.
 */
import { isDeepStrictEqual } from "node:util";
import { ConfigMap, type ConfigMapObject, keyOf, Namespace, NotFoundError } from "kubeloop";
import type { FleetCluster } from "kubeloop/multicluster";
import type { FleetConfigMapObject } from "./api.ts";
import { CHILDREN, OWNER_NAME, OWNER_NAMESPACE } from "./members.ts";

/** The child `fcm` wants in every selected member. */
export function childOf(fcm: FleetConfigMapObject): ConfigMapObject {
  const { name = "", namespace = "" } = fcm.metadata;
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace, labels: { [OWNER_NAMESPACE]: namespace, [OWNER_NAME]: name } },
    data: fcm.spec.data,
  };
}

/** `fcm`'s child as `member`'s cache holds it. */
export function cachedChild(member: FleetCluster, fcm: FleetConfigMapObject): ConfigMapObject | undefined {
  return member.cache.informer(ConfigMap, CHILDREN).store.get(keyOf(fcm));
}

/** Writes `fcm`'s child to `member` unless its cached copy is as desired (its namespace first when it has none). */
export async function ensureCopy(member: FleetCluster, fcm: FleetConfigMapObject): Promise<void> {
  const desired = childOf(fcm);
  const current = cachedChild(member, fcm);
  if (current && isDeepStrictEqual(current.data ?? {}, desired.data) && ownedBy(current, desired)) return;
  const namespace = desired.metadata.namespace ?? "";
  if (!current)
    await member.client.apply(Namespace, {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: namespace },
    });
  await member.client.apply(ConfigMap, desired, { force: true });
}

/** Deletes `fcm`'s child from `member`; one already gone is fine. */
export async function removeCopy(member: FleetCluster, fcm: FleetConfigMapObject): Promise<void> {
  const { name = "", namespace } = fcm.metadata;
  await member.client.delete(ConfigMap, name, { namespace }).catch((err: unknown) => {
    if (!(err instanceof NotFoundError)) throw err;
  });
}

/** Whether `current` carries the owner labels `desired` does. */
function ownedBy(current: ConfigMapObject, desired: ConfigMapObject): boolean {
  const labels = current.metadata.labels ?? {};
  return Object.entries(desired.metadata.labels ?? {}).every(([k, v]) => labels[k] === v);
}
