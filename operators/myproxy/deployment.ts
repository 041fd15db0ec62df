/**
 * The children of a MyProxy, as desired: the ConfigMap holding the generated nginx configuration and
 * the nginx Deployment that mounts it. A configuration hash on the pod template rolls the pods when
 * the configuration changes. Owner references are added by `ensureChild`.
 */
import type { ConfigMapObject, DeploymentObject } from "kubeloop";
import type { MyProxyObject } from "./api.ts";
import { CONFIG_FILE } from "./nginx.ts";

/** The pod template annotation holding the sha256 of the configuration the pods should load. */
export const CONFIG_HASH_ANNOTATION = "proxy.kubeloop.dev/config-hash";
/** The label naming the MyProxy a pod, Deployment or ConfigMap belongs to. */
export const INSTANCE_LABEL = "app.kubernetes.io/instance";

const NAME_LABEL = "app.kubernetes.io/name";
const MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
const CONFIG_VOLUME = "config";

/** Selects the pods of every MyProxy (and nothing else): what the pod informer watches. */
export const PROXY_PODS_SELECTOR = `${NAME_LABEL}=myproxy,${MANAGED_BY_LABEL}=kubeloop`;

/** Labels of a MyProxy's children and pods. */
export function proxyLabels(proxyName: string): Record<string, string> {
  return { [NAME_LABEL]: "myproxy", [INSTANCE_LABEL]: proxyName, [MANAGED_BY_LABEL]: "kubeloop" };
}

/** The name of a MyProxy's ConfigMap. */
export function configMapName(proxyName: string): string {
  return `${proxyName}-nginx`;
}

/** The name of the MyProxy whose ConfigMap is named `configMap`, when it is such a name. */
export function proxyNameOfConfigMap(configMap: string): string | undefined {
  const suffix = configMapName("");
  return configMap.endsWith(suffix) ? configMap.slice(0, -suffix.length) || undefined : undefined;
}

/** The ConfigMap holding `config` as `default.conf`. */
export function desiredConfigMap(proxy: MyProxyObject, config: string): ConfigMapObject {
  const name = proxy.metadata.name ?? "";
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: configMapName(name), namespace: proxy.metadata.namespace, labels: proxyLabels(name) },
    data: { [CONFIG_FILE]: config },
  };
}

/**
 * The nginx Deployment: `spec.replicas` pods of `spec.nginx.image` listening on `spec.nginx.port`
 * with `spec.nginx.resources`, with only the
 * generated `default.conf` mounted into `/etc/nginx/conf.d` (keys others add to the ConfigMap are
 * never loaded), and the configuration's hash on the pod template.
 */
export function desiredDeployment(proxy: MyProxyObject, configHash: string): DeploymentObject {
  const name = proxy.metadata.name ?? "";
  const labels = proxyLabels(name);
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: proxy.metadata.namespace, labels },
    spec: {
      replicas: proxy.spec.replicas,
      selector: { matchLabels: { [NAME_LABEL]: "myproxy", [INSTANCE_LABEL]: name } },
      template: {
        metadata: { labels, annotations: { [CONFIG_HASH_ANNOTATION]: configHash } },
        spec: {
          containers: [nginxContainer(proxy)],
          volumes: [
            {
              name: CONFIG_VOLUME,
              configMap: { name: configMapName(name), items: [{ key: CONFIG_FILE, path: CONFIG_FILE }] },
            },
          ],
        },
      },
    },
  };
}

function nginxContainer(proxy: MyProxyObject) {
  const { image, port, resources } = proxy.spec.nginx;
  return {
    name: "nginx",
    image,
    ports: [{ name: "http", containerPort: port }],
    ...(resources && { resources }),
    volumeMounts: [{ name: CONFIG_VOLUME, mountPath: "/etc/nginx/conf.d", readOnly: true }],
    readinessProbe: { httpGet: { path: "/healthz", port: "http" } },
  };
}
