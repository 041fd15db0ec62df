/** Where a {@link ClusterConnection} came from. */
export type ConfigSource = "kubeconfig" | "in-cluster";

/** The environment variables the loader reads, and passes on to exec plugins. */
export type Env = Readonly<Record<string, string | undefined>>;

/** How to verify the API server. Fixed for the life of a {@link ClusterConnection}. */
export interface TlsSettings {
  /** PEM bundle of CA certificates to trust instead of the system roots. */
  readonly ca?: string;
  /** Skip verifying the server's certificate (`insecure-skip-tls-verify`). Never set together with `ca`. */
  readonly insecure: boolean;
  /** Name to send as SNI and to check the server's certificate against, instead of the server's host. */
  readonly servername?: string;
}

/** A TLS client certificate and its private key, both PEM. */
export interface ClientCertificate {
  /** PEM certificate (chain). */
  readonly cert: string;
  /** PEM private key. */
  readonly key: string;
}

/**
 * The credentials to use at one moment. Snapshots are immutable; a new object means something
 * changed, and {@link Credentials.get} returns the very same object while nothing did.
 */
export interface AuthSnapshot {
  /**
   * Headers to add to every request, with lower-case names: `authorization` and the
   * `impersonate-*` headers. An array value is sent as one header line per element (as
   * `impersonate-group` must be).
   */
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
  /** The TLS client certificate to present, when the user authenticates with one. */
  readonly clientCertificate?: ClientCertificate;
  /**
   * A key for the TLS connection these credentials need: equal identities can share a connection
   * pool, and a different identity needs a new one. It covers the server, the {@link TlsSettings}
   * and the client certificate, not the headers (they travel with each request).
   */
  readonly identity: string;
}

/**
 * The user's credentials, which may change over time (rotated token files, exec plugins).
 *
 * The HTTP layer calls {@link Credentials.get} before each request (it is cheap while nothing
 * changed), and on a 401 calls {@link Credentials.invalidate} with the snapshot the rejected
 * request used, then `get()` again: when that returns the same object, nothing new is available
 * and a retry would fail the same way.
 */
export interface Credentials {
  /**
   * The current credentials. May read a file or run an exec plugin, so it can fail with a
   * `KubeconfigError`, `ExecCredentialError` or `InClusterError`. Aborting `signal` stops the
   * wait, not a plugin run that other callers share.
   */
  get(signal?: AbortSignal): Promise<AuthSnapshot>;
  /**
   * Forgets cached credentials so that the next {@link Credentials.get} reads the token file or
   * runs the exec plugin again. With `rejected`, does nothing unless `rejected` is still the
   * current snapshot, so that late 401s of older requests do not discard fresh credentials.
   */
  invalidate(rejected?: AuthSnapshot): void;
}

/** Everything the HTTP layer needs to talk to one API server as one user. */
export interface ClusterConnection {
  /** Base URL of the API server, without a trailing slash (it may carry a path prefix). */
  readonly server: string;
  /** The namespace to use when the caller names none: the context's, else `"default"`. */
  readonly namespace: string;
  /** Name of the kubeconfig context in use; absent in-cluster. */
  readonly contextName?: string;
  /** Whether this came from a kubeconfig or from the pod's service account. */
  readonly source: ConfigSource;
  /** How to verify the server. */
  readonly tls: TlsSettings;
  /** Who to authenticate as. */
  readonly credentials: Credentials;
}
