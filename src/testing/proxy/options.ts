/**
 * What {@link startProxy} accepts, and how it turns that into upstream credentials, a serving
 * certificate and the CA it trusts for client certificates.
 */
import type { Clock } from "../../clock/index.ts";
import { buildKubeconfig, type KubeconfigDocument } from "../../cluster/index.ts";
import { type KeyPair, type LeafRequest, selfSignedServingCertificate } from "../../tls/index.ts";
import { type KubeconfigSource, upstreamFromKubeconfig } from "./kubeconfig.ts";
import type { UpstreamCredentials } from "./upstream.ts";

/** The parts of a {@link Cluster} the proxy uses; a `Cluster` from `startCluster()` fits. */
export interface ProxyCluster {
  readonly server: string;
  readonly kubeconfig: KubeconfigDocument;
  readonly caPem: string;
  issueCertificate(request: LeafRequest): Promise<KeyPair>;
}

/** The proxy's serving certificate and key, and the CA (PEM) that clients must trust for it. */
export interface ProxyServing extends KeyPair {
  caPem: string;
}

/** Settings shared by both ways of starting a proxy. */
export interface ProxyCommonOptions {
  /** Time for latency, event delays and durations. Default: the system clock. */
  clock?: Clock;
  /** Seed of the generator behind `probability`. Default 1. */
  seed?: number;
  /** How many recent requests {@link FaultProxy.requests} keeps. Default 1000. */
  historySize?: number;
}

/** In front of a local cluster: serving certificate from the cluster's CA, admin credentials from its kubeconfig. */
export interface ProxyClusterOptions extends ProxyCommonOptions {
  cluster: ProxyCluster;
}

/** In front of any apiserver reachable with a client certificate. */
export interface ProxyUpstreamOptions extends ProxyCommonOptions {
  upstream: UpstreamCredentials;
  /** Serving certificate. Default: issued by a CA the proxy makes for itself (see {@link FaultProxy.caPem}). */
  serving?: ProxyServing;
  /** CA whose client certificates the proxy accepts and impersonates. Default: `upstream.ca`. */
  clientCa?: string;
}

/** Options of {@link startProxy}. */
export type ProxyOptions = ProxyClusterOptions | ProxyUpstreamOptions;

/** Everything the server needs, resolved from the options. */
export interface ProxySetup {
  upstream: UpstreamCredentials;
  serving: ProxyServing;
  clientCa: string;
  /** What `kubeconfig()` rewrites when given no source. */
  adminKubeconfig: KubeconfigSource;
}

const servingHosts = ["127.0.0.1", "localhost"];
const servingRequest: LeafRequest = { commonName: "kubeloop-proxy", hosts: servingHosts, usage: "server" };

/** Resolves credentials and certificates from the options. */
export async function resolveSetup(options: ProxyOptions): Promise<ProxySetup> {
  if ("cluster" in options) {
    const { cluster } = options;
    return {
      upstream: upstreamFromKubeconfig(cluster.kubeconfig),
      serving: { ...(await cluster.issueCertificate(servingRequest)), caPem: cluster.caPem },
      clientCa: cluster.caPem,
      adminKubeconfig: cluster.kubeconfig,
    };
  }
  const { upstream } = options;
  return {
    upstream,
    serving: options.serving ?? (await selfSignedServingCertificate(servingRequest.commonName, servingHosts)),
    clientCa: options.clientCa ?? upstream.ca,
    adminKubeconfig: buildKubeconfig({
      name: "kubeloop-proxy",
      server: upstream.server,
      caPem: upstream.ca,
      certPem: upstream.cert,
      keyPem: upstream.key,
    }),
  };
}
