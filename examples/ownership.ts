import { ConfigMap, type ConfigMapObject, ensureChild, type KubeObject } from "kubeloop";
import type { ChildContext } from "kubeloop/ownership";

declare const ctx: ChildContext;
declare const proxy: KubeObject;
declare function desiredConfigMap(owner: KubeObject): ConfigMapObject;

// #region ownership
const result = await ensureChild(ctx, proxy, ConfigMap, desiredConfigMap(proxy));
// "created" | "updated" | "unchanged"; a kubectl edit of the ConfigMap is reverted and reported,
// and a ConfigMap of that name the proxy does not control is left alone (ChildConflictError)
// #endregion

console.log(result);
