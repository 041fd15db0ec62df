/**
 * The __KIND__ reconciler: level-triggered. It reads the current __KIND__, makes its ConfigMap hold
 * the message (repairing it if someone edits or deletes it), and reports what it observed as
 * conditions. It never asks what event happened.
 */
import {
  ChildConflictError,
  ConfigMap,
  type ConfigMapObject,
  ensureChild,
  type ObjectKey,
  objectKey,
  type ReconcileContext,
  writeStatus,
} from "kubeloop";
import { __KIND__, __KIND__Conditions, type __KIND__Object } from "./api.ts";

const CONFIG_MAP_SUFFIX = "-message";

/** The name of the ConfigMap a __KIND__ publishes its message in. */
export function configMapNameOf(obj: __KIND__Object): string {
  return `${obj.metadata.name}${CONFIG_MAP_SUFFIX}`;
}

/**
 * The __KIND__ whose ConfigMap would have this one's name: the controller watches ConfigMaps
 * through it, so a __KIND__ waiting for someone else's ConfigMap to go is reconciled when it goes.
 */
export function __KIND__Of(configMap: ConfigMapObject): ObjectKey[] {
  const name = configMap.metadata.name ?? "";
  if (!name.endsWith(CONFIG_MAP_SUFFIX)) return [];
  return [objectKey(configMap.metadata.namespace, name.slice(0, -CONFIG_MAP_SUFFIX.length))];
}

function desiredConfigMap(obj: __KIND__Object): ConfigMapObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: configMapNameOf(obj), namespace: obj.metadata.namespace },
    data: { message: obj.spec.message },
  };
}

/**
 * Applies the ConfigMap. One of its name that the __KIND__ does not control is someone else's: it
 * is left alone and the conflict is returned, to be reported in the conditions. That is a state
 * of the cluster, not a failure: throwing would log an error and retry for nothing.
 */
async function publish(ctx: ReconcileContext<__KIND__Object>, obj: __KIND__Object, desired: ConfigMapObject) {
  try {
    await ensureChild(ctx, obj, ConfigMap, desired);
    return undefined;
  } catch (err) {
    if (err instanceof ChildConflictError) return err.message;
    throw err;
  }
}

/** Converges one __KIND__. */
export async function reconcile__KIND__(ctx: ReconcileContext<__KIND__Object>): Promise<void> {
  const obj = ctx.object;
  if (!obj) return; // Deleted: the ConfigMap it owned is garbage-collected.
  const desired = desiredConfigMap(obj);
  const conflict = await publish(ctx, obj, desired);
  const stored = (await ctx.cache.reader(ConfigMap)).get(desired.metadata.name ?? "", obj.metadata.namespace);
  // Writes /status only when it changed; the condition transitions it wrote become events and metrics.
  await writeStatus(ctx, __KIND__, obj, __KIND__Conditions, (draft, fresh) => {
    draft.set("ConfigMapReady", configMapCondition(conflict, stored, fresh, desired.metadata.name));
    return { configMapName: desired.metadata.name };
  });
}

function configMapCondition(
  conflict: string | undefined,
  stored: ConfigMapObject | undefined,
  fresh: __KIND__Object,
  name: string | undefined,
) {
  if (conflict) return { status: "False", reason: "ConfigMapTaken", message: conflict } as const;
  if (stored?.data?.message === fresh.spec.message)
    return {
      status: "True",
      reason: "MessagePublished",
      message: `ConfigMap ${name} holds the message`,
    } as const;
  return { status: "False", reason: "Publishing", message: `waiting for ConfigMap ${name}` } as const;
}
