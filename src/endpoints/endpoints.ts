/**
 * Where the manager serves `/metrics`, `/healthz` and `/readyz`, and how. The defaults follow
 * controller-runtime and kubebuilder's scaffold: in a cluster, metrics over HTTPS on :8443 for
 * callers the apiserver authenticates and authorizes (`filters.WithAuthenticationAndAuthorization`),
 * and plain-HTTP probes on :8081 for the kubelet; outside a cluster, both plain and on loopback
 * only (127.0.0.1:8080 and 127.0.0.1:8081), so a laptop never exposes them to its network.
 */
import { readFile } from "node:fs/promises";
import type { Server } from "node:http";
import { hostname } from "node:os";
import { join } from "node:path";
import { createSecureContext } from "node:tls";
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import type { Clock } from "../clock/index.ts";
import { type KeyPair, selfSignedServingCertificate } from "../tls/index.ts";
import type { WebhookServingOptions } from "../webhook/index.ts";
import { MetricsCertificateError } from "./errors.ts";
import { RequestReview, type ReviewClient } from "./internal/request-review.ts";
import type { LiveState } from "./live.ts";
import { type Check, type EndpointsOptions, serveEndpoints } from "./server.ts";

/** Where an HTTP endpoint listens; `port: 0` picks a free port. */
export interface Listen {
  /** Default: `0.0.0.0` in a cluster, `127.0.0.1` outside. */
  host?: string;
  port: number;
}

/**
 * How `/metrics` is served.
 *
 * @example
 * ```ts
 * await Manager.create({
 *   name: "widgets",
 *   metrics: { secure: true, port: 8443, certDir: "/tmp/k8s-metrics-server/metrics-certs" },
 * });
 * ```
 */
export interface MetricsOptions {
  /** Default: `0.0.0.0` in a cluster, `127.0.0.1` outside. */
  host?: string;
  /** Default 8443 when secure, else 8080; 0 picks a free port. */
  port?: number;
  /**
   * Serve HTTPS, and only to callers whose bearer token the apiserver accepts (TokenReview) and
   * who may `get` the path (SubjectAccessReview), like controller-runtime's secure metrics. The
   * operator needs `create` on `tokenreviews` and `subjectaccessreviews` (`kubeloop generate`
   * grants it); a caller needs a role with `nonResourceURLs: ["/metrics"]`, verbs `get`.
   * Default: true in a cluster, false outside.
   */
  secure?: boolean;
  /** Directory holding the serving certificate and key, as controller-runtime's `CertDir`. Default: a self-signed certificate made at start. */
  certDir?: string;
  /** File name of the certificate in `certDir`. Default `tls.crt`. */
  certName?: string;
  /** File name of the key in `certDir`. Default `tls.key`. */
  keyName?: string;
  /** How long the apiserver's answers about a token or a user are reused. Default 60 s. */
  authCacheTtlMs?: number;
}

/** Where the endpoints listen and how; what is left out keeps its default, `false` turns it off. */
export interface EndpointOptions {
  metrics?: MetricsOptions | false;
  health?: Listen | false;
  /**
   * Serve the live page at `/debug/kubeloop` (and its JSON at `/debug/kubeloop/state.json`) on
   * the health port, to loopback clients only. Default: on outside a cluster, off in one (where
   * `kubectl port-forward` reaches it once turned on). Needs the health endpoint.
   */
  livePage?: boolean;
  /** Where and with which certificate the webhooks are served (the `--webhook-*` flags). */
  webhookServer?: WebhookServingOptions;
}

/** Metrics options with the defaults applied. */
export interface ResolvedMetrics extends MetricsOptions {
  host: string;
  port: number;
  secure: boolean;
}

/** The endpoints once the defaults are applied; an absent one is off. */
export interface ResolvedEndpoints {
  metrics?: ResolvedMetrics;
  health?: Required<Listen>;
  /** Whether the health endpoint serves the live page too. */
  livePage?: boolean;
}

/** What {@link startEndpoints} needs of the manager. */
export interface EndpointsContext {
  name: string;
  registry: Registry;
  checks: { healthz: Record<string, Check>; readyz: Record<string, Check> };
  /** The live page's state, served when {@link ResolvedEndpoints.livePage}. */
  live?: () => Promise<LiveState>;
  client: ReviewClient;
  clock: Clock;
  logger: Logger;
}

/** The running endpoints: their servers and the ports they listen on. */
export interface RunningEndpoints {
  servers: Server[];
  ports: { metrics?: number; health?: number };
}

/** A resolved endpoint: where it listens and what it serves. */
interface Endpoint {
  host: string;
  port: number;
  options: EndpointsOptions;
}

/** True when the process runs in a pod: the kubelet sets `KUBERNETES_SERVICE_HOST` in every one. */
export function runningInCluster(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.KUBERNETES_SERVICE_HOST);
}

/** Applies the defaults (see {@link MetricsOptions} and the manager's options) in or outside a cluster. */
export function resolveEndpoints(options: EndpointOptions, inCluster: boolean): ResolvedEndpoints {
  const host = inCluster ? "0.0.0.0" : "127.0.0.1";
  const resolved: ResolvedEndpoints = {};
  if (options.metrics !== false) {
    const metrics = options.metrics ?? {};
    const secure = metrics.secure ?? inCluster;
    resolved.metrics = {
      ...metrics,
      host: metrics.host ?? host,
      port: metrics.port ?? (secure ? 8443 : 8080),
      secure,
    };
  }
  if (options.health !== false) {
    resolved.health = { host: options.health?.host ?? host, port: options.health?.port ?? 8081 };
    resolved.livePage = options.livePage ?? !inCluster;
  }
  return resolved;
}

/** Serves metrics and health as resolved; the two share one server when given the same host and port. */
export async function startEndpoints(
  resolved: ResolvedEndpoints,
  context: EndpointsContext,
): Promise<RunningEndpoints> {
  const metrics = resolved.metrics && (await metricsEndpoint(resolved.metrics, context));
  const live = resolved.livePage && context.live ? { live: context.live } : {};
  const health = resolved.health && { ...resolved.health, options: { health: context.checks, ...live } };
  if (metrics && health && sameAddress(metrics, health)) {
    const { server, port } = await serve({ ...metrics, options: { ...metrics.options, ...health.options } });
    return { servers: [server], ports: { metrics: port, health: port } };
  }
  const running: RunningEndpoints = { servers: [], ports: {} };
  for (const [which, endpoint] of [
    ["metrics", metrics],
    ["health", health],
  ] as const) {
    if (!endpoint) continue;
    const { server, port } = await serve(endpoint);
    running.servers.push(server);
    running.ports[which] = port;
  }
  return running;
}

function serve(endpoint: Endpoint) {
  return serveEndpoints(endpoint.host, endpoint.port, endpoint.options);
}

function sameAddress(a: Endpoint, b: Endpoint): boolean {
  return a.port !== 0 && a.port === b.port && a.host === b.host;
}

async function metricsEndpoint(metrics: ResolvedMetrics, context: EndpointsContext): Promise<Endpoint> {
  const onError = (err: unknown) => context.logger.error({ err }, "serving /metrics failed");
  const endpoint = {
    host: metrics.host,
    port: metrics.port,
    options: { metrics: context.registry, onError },
  };
  if (!metrics.secure) return endpoint;
  const review = new RequestReview({
    client: context.client,
    clock: context.clock,
    ttlMs: metrics.authCacheTtlMs,
    onError: (err, message) => context.logger.error({ err }, `/metrics: ${message}`),
  });
  const tls = await servingCertificate(metrics, context.name);
  return { ...endpoint, options: { ...endpoint.options, tls, guard: (req) => review.check(req) } };
}
/** The certificate in `certDir`, else a self-signed one (controller-runtime's metrics server does the same). */
async function servingCertificate(metrics: MetricsOptions, name: string): Promise<KeyPair> {
  if (metrics.certDir === undefined) {
    return selfSignedServingCertificate(`${name}-metrics`, ["localhost", "127.0.0.1", hostname()]);
  }
  const read = async (file: string) => {
    const path = join(metrics.certDir as string, file);
    return readFile(path, "utf8").catch((err: unknown) => {
      throw new MetricsCertificateError(path, err);
    });
  };
  const [certPem, keyPem] = await Promise.all([
    read(metrics.certName ?? "tls.crt"),
    read(metrics.keyName ?? "tls.key"),
  ]);
  try {
    createSecureContext({ cert: certPem, key: keyPem });
  } catch (err) {
    throw new MetricsCertificateError(metrics.certDir, err);
  }
  return { certPem, keyPem };
}
