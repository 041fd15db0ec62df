import { ConfigMap, type ConfigMapObject, type ObjectOf } from "kubeloop";
import { controller } from "kubeloop/controller";
import type { Manager } from "kubeloop/manager";
import { Widget } from "./schema.ts";

declare const manager: Manager;
declare function desiredConfigMap(widget: ObjectOf<typeof Widget>): ConfigMapObject;

// #region controller
controller(manager)
  .for(Widget)
  .owns(ConfigMap)
  .reconcile(async (ctx) => {
    const widget = ctx.object;
    if (!widget) return; // deleted: owned children are garbage-collected
    await ctx.client.apply(ConfigMap, desiredConfigMap(widget), { fieldManager: "widgets", force: true });
  });
// #endregion
