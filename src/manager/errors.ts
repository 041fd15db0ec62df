/** Errors a user of the manager can cause. */
import type { ResourceType } from "../api/index.ts";
import { KubeloopError } from "../errors/index.ts";

/**
 * A cached read, on a manager sharded by namespace, of a namespace outside the reading shard's,
 * of a kind the shard caches for its own namespaces only, with no informer holding that namespace
 * whole. Answering "not found" would hide an object that exists. Code `KL_OUTSIDE_SHARD_READ`.
 */
export class OutsideShardReadError extends KubeloopError {
  constructor(type: ResourceType, namespace: string) {
    super(
      "KL_OUTSIDE_SHARD_READ",
      `a cached read of ${type.kind} in namespace "${namespace}" from a shard that does not hold that namespace: ` +
        `sharded by namespace, a shard caches the ${type.kind} its controllers declare for its own namespaces only; ` +
        `declare the input on the controller that reads it with .watches(${type.kind}, map, { scope: { namespace: "${namespace}" } }) ` +
        "(an informer of one namespace is cached whole on every shard), read it live with ctx.client.get, " +
        'or shard by uid (sharding: { key: "uid" })',
    );
  }
}

/**
 * A second controller with a name the manager already hosts: names label logs, metrics and
 * queues, so they must be unique. Code `KL_DUPLICATE_CONTROLLER`.
 */
export class DuplicateControllerError extends KubeloopError {
  /** The name given twice. */
  readonly controller: string;

  constructor(name: string) {
    super(
      "KL_DUPLICATE_CONTROLLER",
      `a controller named "${name}" is already registered; name controllers uniquely with .named(), ` +
        `e.g. controller(manager).for(Widget).named("${name}-2")`,
    );
    this.controller = name;
  }
}

/**
 * A flag of the manager's endpoints (`--metrics-bind-address`, `--metrics-secure`, ...) that is
 * unknown or has a value it cannot take. Code `KL_ENDPOINT_FLAG`.
 */
export class EndpointFlagError extends KubeloopError {
  constructor(problem: string, fix: string) {
    super("KL_ENDPOINT_FLAG", `${problem}; ${fix}`);
  }
}

/**
 * The serving certificate of secure metrics could not be read from its directory, or is not a
 * PEM certificate and matching key. Code `KL_METRICS_CERTIFICATE`.
 */
export class MetricsCertificateError extends KubeloopError {
  constructor(file: string, cause: unknown) {
    super(
      "KL_METRICS_CERTIFICATE",
      `cannot use the metrics serving certificate ${file} (${cause instanceof Error ? cause.message : String(cause)}); ` +
        "mount the certificate Secret at the directory given as certDir (--metrics-cert-path) with " +
        "tls.crt and tls.key (or name the files with certName/keyName), or omit certDir to serve a self-signed certificate",
      { cause },
    );
  }
}

/**
 * A manager's sharding options it cannot run with: a controller given to a sharded manager
 * directly instead of through a `setup` it runs per shard, or sharding together with leader
 * election. Code `KL_SHARDING_SETUP`.
 */
export class ShardingSetupError extends KubeloopError {
  constructor(problem: string, fix: string) {
    super("KL_SHARDING_SETUP", `${problem}; ${fix}`);
  }
}

/**
 * A second runnable with a name the manager already runs: names label its logs and metrics.
 * Code `KL_DUPLICATE_RUNNABLE`.
 */
export class DuplicateRunnableError extends KubeloopError {
  constructor(name: string) {
    super(
      "KL_DUPLICATE_RUNNABLE",
      `a runnable named "${name}" was already added; give each runnable a name of its own`,
    );
  }
}

/**
 * The manager could not apply a webhook configuration or a CRD's conversion stanza with its CA.
 * Code `KL_WEBHOOK_CONFIGURATION`.
 */
export class WebhookConfigurationError extends KubeloopError {
  constructor(kind: string, name: string, cause: unknown) {
    const fix =
      kind === "CustomResourceDefinition"
        ? `install the CRD first (kubeloop install, or kubeloop run --install-crds), and let the operator patch it`
        : "let the operator patch it (kubeloop generate grants this with --webhook-certs self)";
    super(
      "KL_WEBHOOK_CONFIGURATION",
      `cannot apply the webhook CA to the ${kind} ${name} (${cause instanceof Error ? cause.message : String(cause)}); ${fix}, ` +
        "or give the manager a certificate directory (webhookServer.certDir, --webhook-cert-path) whose CA something else injects",
      { cause },
    );
  }
}

/**
 * The manager could not read or create the Secret that holds its replicas' shared webhook CA.
 * Code `KL_WEBHOOK_CA_SECRET`.
 */
export class WebhookCaSecretError extends KubeloopError {
  constructor(namespace: string, name: string, cause: unknown) {
    super(
      "KL_WEBHOOK_CA_SECRET",
      `cannot read or create the Secret ${namespace}/${name} holding the webhook CA its replicas share ` +
        `(${cause instanceof Error ? cause.message : String(cause)}); let the operator get and create Secrets ` +
        "in its namespace (kubeloop generate grants this with --webhook-certs self), or give it a certificate " +
        "directory (--webhook-cert-path, e.g. cert-manager's Secret)",
      { cause },
    );
  }
}

/**
 * `OTEL_EXPORTER_OTLP_ENDPOINT` asks for traces, and the OpenTelemetry SDK and OTLP exporter
 * (optional peer dependencies of kubeloop) are not installed. Code `KL_TRACING_SETUP`.
 */
export class TracingSetupError extends KubeloopError {
  constructor(packages: readonly string[], cause: unknown) {
    super(
      "KL_TRACING_SETUP",
      `OTEL_EXPORTER_OTLP_ENDPOINT is set, so the operator exports traces, but the OpenTelemetry SDK is not ` +
        `installed: npm install ${packages.join(" ")} (or unset OTEL_EXPORTER_OTLP_ENDPOINT, or set OTEL_SDK_DISABLED=true)`,
      { cause },
    );
  }
}
