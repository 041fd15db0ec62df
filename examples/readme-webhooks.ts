import type { KubeObject } from "kubeloop";
import { defineKind, z } from "kubeloop";

const Route = defineKind({
  group: "example.com",
  version: "v1",
  kind: "Route",
  scope: "Namespaced",
  spec: z.object({ hostname: z.string(), tls: z.object({ secretName: z.string() }).optional() }),
  versions: [{ name: "v1alpha1", spec: z.object({ host: z.string() }) }],
});
interface RouteV1 extends KubeObject {
  spec: { hostname: string; tls?: { secretName: string } };
}
interface RouteV1alpha1 extends KubeObject {
  spec: { host: string };
}

// #region readme-webhooks
import { conversion, WebhookServer } from "kubeloop/webhook";

const routeVersions = conversion(Route, {
  hub: "v1",
  spokes: {
    v1alpha1: {
      toHub: ({ spec, ...old }: RouteV1alpha1): RouteV1 => ({ ...old, spec: { hostname: spec.host } }),
      fromHub: ({ spec, ...hub }: RouteV1): RouteV1alpha1 => ({ ...hub, spec: { host: spec.hostname } }),
      lacks: ["spec.tls"], // v1 only: kept in an annotation of the v1alpha1 object
    },
  },
});
const server = new WebhookServer({
  webhooks: [routeVersions],
  tls: {
    certFile: "/tmp/k8s-webhook-server/serving-certs/tls.crt",
    keyFile: "/tmp/k8s-webhook-server/serving-certs/tls.key",
  },
  client,
  cache,
  registry, // controller_runtime_webhook_requests_total, _latency_seconds, _requests_in_flight
});
await server.listen(); // HTTPS on :9443, /convert
// #endregion

declare const client: import("kubeloop").Client;
declare const cache: import("kubeloop/cache").InformerCache;
declare const registry: import("prom-client").Registry;
