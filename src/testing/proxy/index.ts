/**
 * @module testing/proxy
 *
 * A fault-injecting HTTPS proxy that sits between a controller (or kubectl, or any client) and a
 * real kube-apiserver, for tests that prove a controller survives what real clusters do to it:
 * slow and failing requests, dropped connections, apiservers that stop answering, watches that
 * lose, repeat or delay events, go silent or end. {@link startProxy} serves on a random loopback
 * port with a certificate the cluster's CA signed, so clients that trust the cluster trust it, and
 * {@link FaultProxy.kubeconfig} writes a kubeconfig for it with the caller's own credentials. The
 * caller's identity reaches the apiserver (bearer tokens as is, client certificates by
 * impersonation), so RBAC still applies. Responses stream through untouched unless a rule says
 * otherwise; watch events are handled one at a time. The proxy also counts every request by verb
 * and resource, so a test can assert that a settled controller makes no writes.
 *
 * Not for production traffic, and not a general HTTP proxy: it speaks HTTP/1.1 to clients and
 * refuses upgraded connections (exec, attach, port-forward). Event faults apply to JSON watch
 * streams; a protobuf watch passes through untouched.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startCluster } from "kubeloop/cluster";
 * import { startProxy } from "kubeloop/testing/proxy";
 *
 * await using cluster = await startCluster();
 * await using proxy = await startProxy({ cluster });
 * process.env.KUBECONFIG = proxy.kubeconfig();
 * const drop = proxy.inject({ verb: "watch", resource: "configmaps" }, { dropEvents: "all" });
 * // ... change ConfigMaps; the controller's watch sees none of it, its resync must catch up ...
 * drop.remove();
 * proxy.inject({ verb: "patch", times: 2 }, { status: 429, retryAfterSeconds: 1 });
 * proxy.resetCounts();
 * // ... let the controller settle ...
 * assert.equal(proxy.mutatingCount(), 0);
 * ```
 */
export type { RequestCounts, RequestRecord } from "./counting.ts";
export { ProxyConfigError, ProxyRuleError } from "./errors.ts";
export type { EventSelector, Fault, WatchEventType } from "./fault.ts";
export { type KubeconfigSource, upstreamFromKubeconfig } from "./kubeconfig.ts";
export type { Match, OneOrMany } from "./match.ts";
export type {
  ProxyCluster,
  ProxyClusterOptions,
  ProxyCommonOptions,
  ProxyOptions,
  ProxyServing,
  ProxyUpstreamOptions,
} from "./options.ts";
export { mutatingVerbs, type Verb } from "./request-info.ts";
export type { RuleHandle } from "./rules.ts";
export { type FaultProxy, startProxy } from "./server.ts";
export type { UpstreamCredentials } from "./upstream.ts";
export type { WatchEventStats } from "./watch-stream.ts";
