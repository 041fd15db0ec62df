/**
 * The two kinds of the myproxy operator, defined once: their TypeScript types, runtime validation and
 * CRDs all come from these schemas. A `MyProxy` is an nginx Deployment; a `ProxyRoute` is one route
 * (host, path, backend Service and port) that a MyProxy serves.
 */
import { defineKind, type ObjectOf, withRules, z } from "kubeloop";
import { MyProxyConditions, ProxyRouteConditions } from "./conditions.ts";

/** The API group of both kinds. */
export const GROUP = "proxy.kubeloop.dev";

/** The nginx image a MyProxy runs unless its spec names another one. */
export const DEFAULT_IMAGE = "nginx:1.27.3-alpine";

const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const dnsLabel = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
/** A resource quantity as Kubernetes writes one (`100m`, `0.5`, `64Mi`, `1e3`). */
const quantity =
  /^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([KMGTPE]i|[numkMGTPE]|[eE][+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+))?$/;

/** CPU and memory quantities, e.g. `{ cpu: "100m", memory: "64Mi" }`. */
const quantities = z.object({
  cpu: z.string().regex(quantity).optional().describe("CPU, e.g. 100m or 0.5."),
  memory: z.string().regex(quantity).optional().describe("Memory, e.g. 64Mi."),
});

/**
 * The nginx image: without whitespace, as LoadTest's image, since the apiserver refuses a pod whose
 * image has any, though it admits the Deployment (its ReplicaSet then fails to create the pods).
 */
const image = z
  .string()
  .min(1)
  .max(255)
  .regex(/^\S+$/)
  .default(DEFAULT_IMAGE)
  .describe("The nginx container image (no whitespace).");

/** The number of nginx pods. */
const replicas = z.int().min(0).max(20).default(2).describe("Number of nginx pods.");

/** The port nginx listens on. */
const port = z.int().min(1).max(65535).default(80).describe("The port nginx listens on in each pod.");

/** The nginx container of a MyProxy (v1beta1). */
const nginxSpec = z.object({
  image,
  port,
  resources: z
    .object({ requests: quantities.optional(), limits: quantities.optional() })
    .optional()
    .describe(
      "Compute resources of the nginx container (v1beta1 only: v1alpha1 keeps them in an annotation).",
    ),
});

/** The desired state of a MyProxy (v1beta1, the storage version). */
const myProxySpec = z.object({
  replicas,
  nginx: nginxSpec.prefault({}).describe("The nginx container."),
});

/** The desired state of a MyProxy in v1alpha1, the first version: the container's fields at the top. */
const myProxySpecV1alpha1 = z.object({
  replicas,
  image,
  port,
});

/** What the MyProxy controller observed (the same in both versions). */
const myProxyStatus = z.object({
  podNames: z
    .array(z.string())
    .optional()
    .describe("Names of the Deployment's pods that are not terminating or finished, sorted."),
  replicas: z.int().optional().describe("Pods of the Deployment, of any template."),
  readyReplicas: z.int().optional().describe("Pods of the Deployment that are ready."),
  acceptedRoutes: z.int().optional().describe("ProxyRoutes in the current configuration."),
  configHash: z.string().optional().describe("sha256 of the generated nginx configuration."),
});

const printerColumns = [
  { name: "Desired", type: "integer", jsonPath: ".spec.replicas" },
  { name: "ReadyPods", type: "integer", jsonPath: ".status.readyReplicas" },
  { name: "Routes", type: "integer", jsonPath: ".status.acceptedRoutes" },
] as const;

/**
 * A MyProxy: nginx pods serving the ProxyRoutes that reference it. v1beta1 is the version the
 * controllers use and the apiserver stores; v1alpha1 is still served, converted by the operator's
 * conversion webhook ({@link myProxyConversion}).
 */
export const MyProxy = defineKind({
  group: GROUP,
  version: "v1beta1",
  kind: "MyProxy",
  scope: "Namespaced",
  description: "An nginx reverse proxy whose configuration is generated from the ProxyRoutes naming it.",
  spec: myProxySpec,
  status: myProxyStatus,
  conditions: MyProxyConditions,
  // Its name is the value of its children's and pods' `app.kubernetes.io/instance` label.
  maxNameLength: 63,
  printerColumns,
  versions: [{ name: "v1alpha1", spec: myProxySpecV1alpha1, status: myProxyStatus }],
});

/** A MyProxy object as stored in the cluster (v1beta1). */
export type MyProxyObject = ObjectOf<typeof MyProxy>;

/** A MyProxy object in v1alpha1. */
export type MyProxyV1alpha1Object = Omit<MyProxyObject, "spec"> & {
  spec: z.output<typeof myProxySpecV1alpha1>;
};

/** A Service port by number (1–65535) or by name (an IANA service name). */
const servicePort = withRules(z.union([z.int(), z.string()]), {
  rule: "type(self) == int ? self >= 1 && self <= 65535 : size(self) <= 15 && self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",
  message: "port must be a number from 1 to 65535 or a Service port name",
});

/** The desired state of a ProxyRoute. */
const proxyRouteSpec = z.object({
  proxy: z.string().min(1).max(253).regex(dnsSubdomain).describe("Name of the MyProxy, in this namespace."),
  host: z
    .string()
    .min(1)
    .max(253)
    .regex(dnsSubdomain)
    .describe("Host name the route answers, e.g. api.example.com."),
  path: z
    .string()
    .max(1024)
    .regex(/^\/[A-Za-z0-9._~%/-]*$/)
    .default("/")
    .describe("Path prefix, starting with '/'."),
  backend: z
    .object({
      service: z.string().min(1).max(63).regex(dnsLabel).describe("Name of a Service in this namespace."),
      port: servicePort.describe("A port of that Service, by number or by name."),
    })
    .describe("Where matching requests go."),
});

/** What the ProxyRoute controller observed. */
const proxyRouteStatus = z.object({
  upstream: z.string().optional().describe("The URL requests are proxied to, while the route is accepted."),
});

/** A ProxyRoute: one route of a MyProxy. */
export const ProxyRoute = defineKind({
  group: GROUP,
  version: "v1alpha1",
  kind: "ProxyRoute",
  scope: "Namespaced",
  description: "A route (host, path prefix, backend Service and port) served by the MyProxy it names.",
  spec: proxyRouteSpec,
  status: proxyRouteStatus,
  conditions: ProxyRouteConditions,
  printerColumns: [
    { name: "Proxy", type: "string", jsonPath: ".spec.proxy" },
    { name: "Host", type: "string", jsonPath: ".spec.host" },
    { name: "Path", type: "string", jsonPath: ".spec.path" },
    { name: "Backend", type: "string", jsonPath: ".spec.backend.service" },
  ],
});

/** A ProxyRoute object as stored in the cluster. */
export type ProxyRouteObject = ObjectOf<typeof ProxyRoute>;
