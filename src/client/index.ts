/**
 * @module client
 *
 * Talks to the Kubernetes API. {@link Client} offers typed verbs for any kind — get, list
 * (paged), create, update (optimistic concurrency), patch (merge, JSON, strategic), server-side
 * apply, delete (propagation, preconditions) and the status subresource — over one keep-alive
 * connection pool per cluster and credential (undici), with no client-side rate limit unless one
 * is set (`qps`, `burst`; the apiserver's priority and fairness paces clients, as controller-runtime
 * relies on since 0.21), `Retry-After` honoured, retries only where they are safe, and typed
 * errors (`NotFoundError`, `ConflictError`, `InvalidError` with field causes, ...).
 * `client/config` loads kubeconfig or in-cluster credentials; {@link Discovery} maps kinds to
 * resources.
 *
 * Not a cache and not a watcher: reads here always go to the apiserver. Controllers read from
 * `kubeloop/cache`, and `kubeloop/watch` turns {@link Client.watchStream} into a resumable stream.
 *
 * @example
 * ```ts
 * import { Client, ConfigMap, NotFoundError } from "kubeloop";
 *
 * const client = await Client.load();
 * try {
 *   await client.get(ConfigMap, "settings", { namespace: "default" });
 * } catch (err) {
 *   if (!(err instanceof NotFoundError)) throw err;
 *   await client.create(ConfigMap, {
 *     apiVersion: "v1",
 *     kind: "ConfigMap",
 *     metadata: { name: "settings" },
 *     data: {},
 *   });
 * }
 * ```
 */
export * from "./client.ts";
export * from "./config/index.ts";
export { Discovery, type ServedResource } from "./discovery.ts";
export * from "./errors.ts";
export * from "./metrics.ts";
export * from "./options.ts";
export {
  type ApiRequest,
  type ApiResponse,
  compose,
  type Dispatch,
  type Interceptor,
  type ResponseBody,
  type Verb,
} from "./transport.ts";
