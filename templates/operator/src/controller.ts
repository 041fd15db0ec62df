/**
 * The __KIND__ reconciler: level-triggered. It reads the current __KIND__, makes its ConfigMap hold
 * the message (repairing it if someone edits or deletes it), and reports what it observed as
 * conditions. It never asks what event happened.
 */
import { ConfigMap, type ConfigMapObject, ensureChild, type ReconcileContext, writeStatus } from "kubeloop";
import { __KIND__, __KIND__Conditions, type __KIND__Object } from "./api.ts";

/** The name of the ConfigMap a __KIND__ publishes its message in. */
export function configMapNameOf(obj: __KIND__Object): string {
  return `${obj.metadata.name}-message`;
}

function desiredConfigMap(obj: __KIND__Object): ConfigMapObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: configMapNameOf(obj), namespace: obj.metadata.namespace },
    data: { message: obj.spec.message },
  };
}

/** Converges one __KIND__. */
export async function reconcile__KIND__(ctx: ReconcileContext<__KIND__Object>): Promise<void> {
  const obj = ctx.object;
  if (!obj) return; // Deleted: the ConfigMap it owned is garbage-collected.
  const desired = desiredConfigMap(obj);
  await ensureChild(ctx, obj, ConfigMap, desired);
  const stored = (await ctx.cache.reader(ConfigMap)).get(desired.metadata.name ?? "", obj.metadata.namespace);
  // Writes /status only when it changed; the condition transitions it wrote become events and metrics.
  await writeStatus(ctx, __KIND__, obj, __KIND__Conditions, (draft, fresh) => {
    draft.set(
      "ConfigMapReady",
      stored?.data?.message === fresh.spec.message
        ? {
            status: "True",
            reason: "MessagePublished",
            message: `ConfigMap ${desired.metadata.name} holds the message`,
          }
        : {
            status: "False",
            reason: "Publishing",
            message: `waiting for ConfigMap ${desired.metadata.name}`,
          },
    );
    return { configMapName: desired.metadata.name };
  });
}
