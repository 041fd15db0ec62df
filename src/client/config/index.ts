/**
 * @module client/config
 *
 * Finds out which API server to talk to and as whom. {@link loadConfig} reads the pod's service
 * account when running in a cluster and the kubeconfig otherwise (`KUBECONFIG`, a list of files
 * merged like client-go, else `~/.kube/config`), and returns a {@link ClusterConnection}: the
 * server URL, the default namespace, how to verify the server ({@link TlsSettings}), and
 * {@link Credentials} that yield the current auth headers and client certificate. Credentials
 * may change over time: token files are re-read (bound tokens rotate) and exec plugins
 * (`client.authentication.k8s.io/v1` and `v1beta1`) run again before their output expires or
 * after a 401.
 *
 * It is not an HTTP client: it opens no connection and sends no request. The client in
 * `src/client` consumes a {@link ClusterConnection}, keying its connection pools on
 * {@link AuthSnapshot.identity}. It does not write kubeconfig files, and it does not support
 * legacy `auth-provider` entries, `proxy-url`, or interactive exec plugins; each fails with a
 * clear error.
 *
 * @example
 * ```ts
 * const conn = await loadConfig({ context: "dev" });
 * const auth = await conn.credentials.get();
 * // conn.server, conn.tls and auth.clientCertificate configure the TLS connection
 * // (one pool per auth.identity); auth.headers go on every request.
 * // After a 401:
 * conn.credentials.invalidate(auth);
 * const fresh = await conn.credentials.get();
 * if (fresh !== auth) {
 *   // retry once with the new credentials
 * }
 * ```
 */

export {
  ExecCredentialError,
  InClusterError,
  KubeconfigError,
  KubeconfigNotFoundError,
  KubeconfigUnsupportedError,
} from "./errors.ts";
export { DEFAULT_SERVICE_ACCOUNT_DIR, type InClusterOptions, loadInCluster } from "./in-cluster.ts";
export { type KubeconfigOptions, loadKubeconfig } from "./kubeconfig.ts";
export { type LoadConfigOptions, loadConfig } from "./load.ts";
export type {
  AuthSnapshot,
  ClientCertificate,
  ClusterConnection,
  ConfigSource,
  Credentials,
  Env,
  TlsSettings,
} from "./types.ts";
