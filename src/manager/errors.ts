/** Errors a user of the manager can cause. */
import { KubeloopError } from "../errors/index.ts";

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
