/**
 * Objects for the myproxy unit tests: routes, Services, Deployments and pods as the cache holds them;
 * and the longest values a route may hold, which the end-to-end tests use too.
 */
import type { DeploymentObject, PodObject, ServiceObject } from "kubeloop";
import type { DeploymentCondition } from "kubeloop/api/apps/v1";
import type { ProxyRouteObject } from "../../api.ts";
import type { AcceptedRoute } from "../../routes.ts";

export const NS = "shop";

/** A ProxyRoute of MyProxy `edge`, created at second `createdAt` of 2025-01-01T00:00. */
export function route(
  name: string,
  spec: { host: string; path?: string; service: string; port: number | string },
  createdAt = 0,
): ProxyRouteObject {
  return {
    apiVersion: "proxy.kubeloop.dev/v1alpha1",
    kind: "ProxyRoute",
    metadata: {
      name,
      namespace: NS,
      uid: `uid-${name}`,
      creationTimestamp: `2025-01-01T00:00:${String(createdAt).padStart(2, "0")}Z`,
    },
    spec: {
      proxy: "edge",
      host: spec.host,
      path: spec.path ?? "/",
      backend: { service: spec.service, port: spec.port },
    },
  };
}

/** The `i`th of routes as large as the schema allows: a name, a host and a path at their longest. */
export function largeRouteSpec(i: number): { name: string; host: string; path: string } {
  const n = String(i).padStart(5, "0");
  const label = (c: string) => c.repeat(63);
  return {
    name: `${"n".repeat(247)}-${n}`,
    host: `${label("a")}.${label("b")}.${label("c")}.h${n}-${"d".repeat(54)}`,
    path: `/${"p".repeat(1017)}/${n}`,
  };
}

/** A Service with named ports. */
export function service(
  name: string,
  ports: { port: number; name?: string }[],
  namespace = NS,
): ServiceObject {
  return { apiVersion: "v1", kind: "Service", metadata: { name, namespace }, spec: { ports } };
}

/** A route accepted with an upstream on `service:port` in {@link NS}. */
export function accepted(r: ProxyRouteObject, port: number): AcceptedRoute {
  const svc = r.spec.backend.service;
  return {
    route: r,
    upstream: { service: svc, namespace: NS, port, url: `http://${svc}.${NS}.svc.cluster.local:${port}` },
  };
}

/** A Deployment `edge` with the given spec replicas, generation and status. */
export function deployment(
  replicas: number,
  status: DeploymentObject["status"],
  generation = 1,
): DeploymentObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "edge", namespace: NS, generation },
    spec: { replicas, selector: {}, template: { spec: { containers: [] } } },
    status,
  };
}

/** A Deployment condition. */
export function condition(
  type: string,
  status: DeploymentCondition["status"],
  reason: string,
  message = "",
): DeploymentCondition {
  return { type, status, reason, message };
}

/** A pod in `phase`, optionally terminating. */
export function pod(
  name: string,
  phase: NonNullable<PodObject["status"]>["phase"],
  terminating = false,
): PodObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: NS,
      ...(terminating ? { deletionTimestamp: "2025-01-01T00:01:00Z" } : {}),
    },
    spec: { containers: [] },
    status: { phase },
  };
}
