/**
 * The conformance spec of the myproxy operator (`kubeloop verify --spec
 * operators/myproxy/test/conformance.ts`): two backend Services, a MyProxy of two nginx pods and two
 * routes to it. Its outputs are the nginx ConfigMap and Deployment; the spec change scales the
 * MyProxy, which the Deployment must follow.
 */
import type { KubeObject, ServiceObject } from "kubeloop";
import { defineConformance } from "kubeloop/testing/conformance";
import { MyProxy, type MyProxyObject, ProxyRoute, type ProxyRouteObject } from "../api.ts";

function service(namespace: string, name: string, port: number, portName?: string): ServiceObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace },
    spec: {
      selector: { app: name },
      ports: [{ ...(portName ? { name: portName } : {}), port, targetPort: port }],
    },
  };
}

function proxy(namespace: string): MyProxyObject {
  return {
    apiVersion: MyProxy.apiVersion,
    kind: MyProxy.kind,
    metadata: { name: "edge", namespace },
    spec: { replicas: 2, nginx: { image: "nginx:1.27.3-alpine", port: 80 } },
  };
}

function route(namespace: string, name: string, spec: ProxyRouteObject["spec"]): ProxyRouteObject {
  return { apiVersion: ProxyRoute.apiVersion, kind: ProxyRoute.kind, metadata: { name, namespace }, spec };
}

// Typed after the MyProxy, the first primary among the fixtures: the one `mutate` receives.
export default defineConformance<MyProxyObject>({
  operator: new URL("../operator.ts", import.meta.url),
  fixtures: (namespace): KubeObject[] => [
    service(namespace, "api", 8080, "http"),
    service(namespace, "web", 80),
    proxy(namespace),
    route(namespace, "api", {
      proxy: "edge",
      host: "api.example.com",
      path: "/v1",
      backend: { service: "api", port: "http" },
    }),
    route(namespace, "web", {
      proxy: "edge",
      host: "www.example.com",
      path: "/",
      backend: { service: "web", port: 80 },
    }),
  ],
  mutate: (edge, round) => ({ ...edge, spec: { ...edge.spec, replicas: 2 + round } }),
  logLevel: "warn",
});
