/**
 * How the two controllers find related objects in the shared cache without scanning it: ProxyRoutes
 * indexed by the MyProxy they reference and by their backend Service, and one pod informer narrowed
 * by label to MyProxy pods (the cluster's other pods are never cached).
 */
import {
  ConfigMap,
  type ConfigMapObject,
  type DeploymentObject,
  isControlledBy,
  type KubeObject,
  keyOf,
  type MapFn,
  type ObjectKey,
  objectKey,
  Pod,
  type PodObject,
  type Predicate,
  Service,
  type ServiceObject,
} from "kubeloop";
import type { InformerCache, InformerScope, StoreReader } from "kubeloop/cache";
import { MyProxy, type MyProxyObject, ProxyRoute, type ProxyRouteObject } from "./api.ts";
import { configMapName, INSTANCE_LABEL, PROXY_PODS_SELECTOR, proxyNameOfConfigMap } from "./deployment.ts";
import { CONFIG_FILE, pathOf, routesServed } from "./nginx.ts";

const BY_PROXY = "proxy";
const BY_BACKEND = "backend";
const BY_SLOT = "slot";

/** The ProxyRoute store, with its `proxy` and `backend` indexes added (once). */
export function routeStore(cache: InformerCache): StoreReader<ProxyRouteObject> {
  const informer = cache.informer(ProxyRoute);
  informer.addIndexer(BY_PROXY, (route) => [proxyKeyOf(route)]);
  informer.addIndexer(BY_BACKEND, (route) => [
    objectKey(route.metadata.namespace, route.spec.backend.service),
  ]);
  informer.addIndexer(BY_SLOT, (route) => [slotOf(route)]);
  return informer.store;
}

/** The host and path a route claims on its MyProxy: routes in one slot compete for it. */
export function slotOf(route: ProxyRouteObject): string {
  return `${proxyKeyOf(route)} ${route.spec.host} ${pathOf(route)}`;
}

/**
 * The routes claiming the same host and path of the same MyProxy as `route` (itself included):
 * the only routes whose verdict a change of `route` can change directly. A change that moves the
 * configuration's budget changes the ConfigMap, whose watch wakes every route of the MyProxy.
 */
export function routesInSlotOf(cache: InformerCache, route: ProxyRouteObject): ProxyRouteObject[] {
  return routeStore(cache).byIndex(BY_SLOT, slotOf(route));
}

/** The key of the MyProxy a route references. */
export function proxyKeyOf(route: ProxyRouteObject): ObjectKey {
  return objectKey(route.metadata.namespace, route.spec.proxy);
}

/** The routes referencing the MyProxy with this key. */
export function routesOfProxy(cache: InformerCache, proxyKey: ObjectKey): ProxyRouteObject[] {
  return routeStore(cache).byIndex(BY_PROXY, proxyKey);
}

/** The routes whose backend is this Service. */
export function routesOfService(cache: InformerCache, service: ServiceObject): ProxyRouteObject[] {
  return routeStore(cache).byIndex(BY_BACKEND, keyOf(service));
}

/** The cached Services the given routes reference (those that exist). */
export function backendsOf(cache: InformerCache, routes: readonly ProxyRouteObject[]): ServiceObject[] {
  const services = cache.informer(Service).store;
  const keys = new Set(routes.map((r) => objectKey(r.metadata.namespace, r.spec.backend.service)));
  return [...keys].flatMap((key) => services.get(key) ?? []);
}

/** The names of the routes in the configuration the MyProxy with this key last wrote (none without one). */
export function servedRoutes(cache: InformerCache, proxy: MyProxyObject): ReadonlySet<string> {
  const key = objectKey(proxy.metadata.namespace, configMapName(proxy.metadata.name ?? ""));
  const configMap = cache.informer(ConfigMap).store.get(key);
  const config = configMap && isControlledBy(configMap, proxy) ? configMap.data?.[CONFIG_FILE] : undefined;
  return configMap && config ? routesServed(configMap, config) : new Set();
}

/** The keys of the routes of the MyProxy a ConfigMap belongs to, by its name. */
export function routesOfConfigMap(cache: InformerCache): MapFn<ConfigMapObject> {
  return (cm) => configMapToProxy(cache)(cm).flatMap((proxyKey) => routesOfProxy(cache, proxyKey).map(keyOf));
}

/** The cached MyProxy with this key. */
export function cachedProxy(cache: InformerCache, key: ObjectKey): MyProxyObject | undefined {
  return cache.informer(MyProxy).store.get(key);
}

/** The key of the cached MyProxy `name` in `namespace`, as a map function's answer. */
function existingProxy(cache: InformerCache, namespace: string | undefined, name: string | undefined) {
  const key = objectKey(namespace, name ?? "");
  return name && cachedProxy(cache, key) ? [key] : [];
}

/**
 * Maps a ConfigMap to the MyProxy whose ConfigMap it is named like, when that MyProxy exists: a
 * ConfigMap holding the name without being the MyProxy's blocks it, and its removal frees it.
 */
export function configMapToProxy(cache: InformerCache): MapFn<ConfigMapObject> {
  return (cm) => existingProxy(cache, cm.metadata.namespace, proxyNameOfConfigMap(cm.metadata.name ?? ""));
}

/** Maps a Deployment to the MyProxy of the same name, when it exists (as {@link configMapToProxy}). */
export function deploymentToProxy(cache: InformerCache): MapFn<DeploymentObject> {
  return (d) => existingProxy(cache, d.metadata.namespace, d.metadata.name);
}

/** The scope of the pod informer: the cache's default for pods, narrowed to MyProxy pods. */
export function podScope(cache: InformerCache): InformerScope {
  return { ...cache.scopeFor(Pod), labelSelector: PROXY_PODS_SELECTOR };
}

/** The cached pods of one MyProxy. */
export function podsOfProxy(cache: InformerCache, proxy: MyProxyObject): PodObject[] {
  return cache.informer(Pod, podScope(cache)).store.list({
    namespace: proxy.metadata.namespace,
    labelSelector: `${INSTANCE_LABEL}=${proxy.metadata.name}`,
  });
}

/** Maps a pod to the MyProxy named by its instance label. */
export const podToProxy: MapFn<PodObject> = (pod) => {
  const name = pod.metadata.labels?.[INSTANCE_LABEL];
  return name ? [objectKey(pod.metadata.namespace, name)] : [];
};

/** Lets pod updates through only when they change whether the pod counts in `podNames`. */
export const podMembershipChanged: Predicate<PodObject> = {
  update: (old, pod) =>
    old.metadata.deletionTimestamp !== pod.metadata.deletionTimestamp ||
    old.status?.phase !== pod.status?.phase,
};

/** Lets only creations and deletions through (for objects whose mere existence matters). */
export const existenceChanged: Predicate<KubeObject> = { update: () => false };
