/**
 * The command-line flags of a manager's endpoints, with kubebuilder's names and meanings
 * (`--metrics-bind-address`, `--metrics-secure`, `--metrics-cert-path`, `--metrics-cert-name`,
 * `--metrics-cert-key`, `--health-probe-bind-address`, `--webhook-cert-path`, `--webhook-cert-name`,
 * `--webhook-cert-key`; `--webhook-bind-address` and `--live-page` are ours), and of its sharding (`--shards`,
 * `--shard-key`), shared by `kubeloop run` and an operator's container entry point so that the
 * generated Deployment's args mean the same to both.
 */
import { parseArgs } from "node:util";
import type { EndpointOptions, Listen } from "../endpoints/index.ts";
import type { ShardKey } from "../sharding/index.ts";
import type { ShardingOptions } from "../shards/index.ts";
import type { WebhookServingOptions } from "../webhook/index.ts";
import { EndpointFlagError } from "./errors.ts";

/** One flag of {@link endpointFlags}. */
export interface EndpointFlag {
  /** The name after `--`. */
  readonly name: string;
  /** Placeholder of the value; a flag without one is boolean and has a `--no-` form too. */
  readonly value?: string;
  readonly description: string;
}

/** The flags, for a command line to declare (`kubeloop run` adds them to its commander command). */
export const endpointFlags: readonly EndpointFlag[] = [
  {
    name: "metrics-bind-address",
    value: "<host:port>",
    description:
      "where /metrics listens, e.g. :8443 or 127.0.0.1:8080; 0 turns it off (default :8443 in a cluster, 127.0.0.1:8080 outside)",
  },
  {
    name: "metrics-secure",
    description:
      "serve /metrics over HTTPS to callers the apiserver authenticates and authorizes (default: in a cluster; --no-metrics-secure for plain HTTP)",
  },
  {
    name: "metrics-cert-path",
    value: "<dir>",
    description: "directory of the metrics serving certificate (default: a self-signed certificate)",
  },
  {
    name: "metrics-cert-name",
    value: "<file>",
    description: "certificate file in --metrics-cert-path (default tls.crt)",
  },
  {
    name: "metrics-cert-key",
    value: "<file>",
    description: "key file in --metrics-cert-path (default tls.key)",
  },
  {
    name: "health-probe-bind-address",
    value: "<host:port>",
    description:
      "where /healthz and /readyz listen, plain HTTP (default :8081 in a cluster, 127.0.0.1:8081 outside)",
  },
  {
    name: "live-page",
    description:
      "serve the live page at /debug/kubeloop on the health port, to loopback clients only (default: outside a cluster; in one, reach it with kubectl port-forward)",
  },
  {
    name: "webhook-bind-address",
    value: "<host:port>",
    description:
      "where the webhook server listens, HTTPS, when the operator declares webhooks (default :9443 in a cluster, 127.0.0.1:9443 outside)",
  },
  {
    name: "webhook-cert-path",
    value: "<dir>",
    description:
      "directory of the webhook serving certificate, e.g. cert-manager's Secret (default: a CA and certificate the manager makes, whose CA it applies to its webhook configurations)",
  },
  {
    name: "webhook-cert-name",
    value: "<file>",
    description: "certificate file in --webhook-cert-path (default tls.crt)",
  },
  {
    name: "webhook-cert-key",
    value: "<file>",
    description: "key file in --webhook-cert-path (default tls.key)",
  },
];

/** The leader election flag of an operator's container, as kubebuilder's `main.go` has it. */
export const leaderElectionFlags: readonly EndpointFlag[] = [
  {
    name: "leader-elect",
    description:
      "elect one leader among the replicas with a Lease in the operator's namespace (default true; --leader-elect=false for a single replica, e.g. run locally)",
  },
];

/** The sharding flags, for a command line to declare (`kubeloop run` adds them too). */
export const shardingFlags: readonly EndpointFlag[] = [
  {
    name: "shards",
    value: "<n>",
    description:
      "shard the controllers across the operator's replicas over n virtual shards (a Lease each) instead of electing one leader",
  },
  {
    name: "shard-key",
    value: "<namespace|uid>",
    description: "what places an object in a shard, with --shards (default namespace)",
  },
];

/**
 * The sharding the flag values ask for: none without `--shards`; throws {@link EndpointFlagError}
 * on a count that is not a whole number from 1, or a key other than `namespace` and `uid`.
 */
export function shardingOptions(values: { shards?: string; shardKey?: string }): ShardingOptions | undefined {
  if (values.shards === undefined) return undefined;
  const shards = Number(values.shards);
  if (!Number.isInteger(shards) || shards < 1) {
    throw new EndpointFlagError(
      `--shards "${values.shards}" is not a number of shards`,
      "give a whole number from 1, e.g. --shards=32",
    );
  }
  const key = values.shardKey ?? "namespace";
  if (key !== "namespace" && key !== "uid") {
    throw new EndpointFlagError(
      `--shard-key "${key}" is not a shard key`,
      "give --shard-key=namespace or --shard-key=uid",
    );
  }
  return { shards, key: key as ShardKey };
}

/** The values of {@link endpointFlags} by camel-cased name, as commander gives them. */
export interface EndpointFlagValues {
  metricsBindAddress?: string;
  metricsSecure?: boolean;
  metricsCertPath?: string;
  metricsCertName?: string;
  metricsCertKey?: string;
  healthProbeBindAddress?: string;
  livePage?: boolean;
  webhookBindAddress?: string;
  webhookCertPath?: string;
  webhookCertName?: string;
  webhookCertKey?: string;
}

/**
 * The endpoint options the flag values ask for.
 *
 * @example
 * ```ts
 * endpointOptions({ metricsBindAddress: ":8443", metricsSecure: true }); // { metrics: { host: "0.0.0.0", port: 8443, secure: true } }
 * ```
 */
export function endpointOptions(values: EndpointFlagValues): EndpointOptions {
  const listen =
    values.metricsBindAddress === undefined
      ? {}
      : bindAddress("metrics-bind-address", values.metricsBindAddress);
  const options: EndpointOptions = {
    metrics: listen && {
      ...listen,
      secure: values.metricsSecure,
      certDir: values.metricsCertPath,
      certName: values.metricsCertName,
      keyName: values.metricsCertKey,
    },
  };
  if (values.healthProbeBindAddress !== undefined) {
    options.health = bindAddress("health-probe-bind-address", values.healthProbeBindAddress);
  }
  if (values.livePage !== undefined) options.livePage = values.livePage;
  const webhookServer = webhookServing(values);
  if (webhookServer) options.webhookServer = webhookServer;
  return options;
}

/** The webhook server options of the `--webhook-*` flags; undefined when none is given. */
function webhookServing(values: EndpointFlagValues): WebhookServingOptions | undefined {
  const { webhookBindAddress, webhookCertPath, webhookCertName, webhookCertKey } = values;
  const given = [webhookBindAddress, webhookCertPath, webhookCertName, webhookCertKey];
  if (given.every((value) => value === undefined)) return undefined;
  const listen =
    webhookBindAddress === undefined ? {} : bindAddress("webhook-bind-address", webhookBindAddress);
  if (listen === false) {
    throw new EndpointFlagError(
      "--webhook-bind-address cannot be 0",
      "the webhooks must be served: give host:port, e.g. :9443",
    );
  }
  const files = { certDir: webhookCertPath, certName: webhookCertName, keyName: webhookCertKey };
  return Object.fromEntries(Object.entries({ ...listen, ...files }).filter(([, v]) => v !== undefined));
}

/**
 * Parses the endpoint flags of a command line, e.g. an operator container's
 * `node dist/main.js --metrics-bind-address=:8443 --health-probe-bind-address=:8081`. Throws
 * {@link EndpointFlagError} on any other argument.
 *
 * @example
 * ```ts
 * await runOperator(operator, parseEndpointFlags(process.argv.slice(2)));
 * ```
 */
export function parseEndpointFlags(args: readonly string[]): EndpointOptions {
  return endpointOptions(parseFlags(args, endpointFlags) as EndpointFlagValues);
}

/** The values of `flags` in `args`, by camel-cased name; throws {@link EndpointFlagError} on any other argument. */
function parseFlags(
  args: readonly string[],
  flags: readonly EndpointFlag[],
): Record<string, string | boolean> {
  const spec = Object.fromEntries(
    flags.map((flag) => [flag.name, { type: flag.value ? ("string" as const) : ("boolean" as const) }]),
  );
  try {
    const { values } = parseArgs({
      args: args.map((arg) => booleanAsFlag(arg, flags)),
      options: spec,
      strict: true,
      allowNegative: true,
    });
    const camel = Object.entries(values).map(([name, value]) => [
      name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()),
      value,
    ]);
    return Object.fromEntries(camel) as Record<string, string | boolean>;
  } catch (err) {
    throw new EndpointFlagError(
      (err as Error).message.split(".")[0] ?? String(err),
      `the flags are ${flags.map((f) => (f.value ? `--${f.name}=${f.value}` : `--[no-]${f.name}`)).join(", ")}`,
    );
  }
}

/**
 * `--name=true` as `--name` and `--name=false` as `--no-name` for a boolean flag, as Go's flag
 * package (and so kubebuilder's `--leader-elect=false`) reads them; any other argument as it is.
 */
function booleanAsFlag(arg: string, flags: readonly EndpointFlag[]): string {
  const match = /^--([a-z-]+)=(true|false)$/.exec(arg);
  if (!match || !flags.some((flag) => flag.name === match[1] && !flag.value)) return arg;
  return match[2] === "true" ? `--${match[1]}` : `--no-${match[1]}`;
}

/**
 * Parses an operator container's command line: the endpoint flags, the sharding flags and
 * `--leader-elect` (`--leader-elect=false` turns leader election off), e.g.
 * `node dist/main.js --metrics-bind-address=:8443 --metrics-secure --shards=32`. Throws
 * {@link EndpointFlagError} on any other argument.
 *
 * @example
 * ```ts
 * await runOperator(operator, parseOperatorFlags(process.argv.slice(2)));
 * ```
 */
export function parseOperatorFlags(
  args: readonly string[],
): EndpointOptions & { sharding?: ShardingOptions; leaderElection?: false } {
  const flags = [...endpointFlags, ...shardingFlags, ...leaderElectionFlags];
  const values = parseFlags(args, flags) as EndpointFlagValues & {
    shards?: string;
    shardKey?: string;
    leaderElect?: boolean;
  };
  const sharding = shardingOptions(values);
  return {
    ...endpointOptions(values),
    ...(sharding ? { sharding } : {}),
    ...(values.leaderElect === false ? { leaderElection: false as const } : {}),
  };
}

/** `host:port` (`:port` for every interface, `[v6]:port`), or `0` for off, as controller-runtime reads it. */
function bindAddress(flag: string, value: string): Listen | false {
  if (value === "0") return false;
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]*)):(\d{1,5})$/.exec(value);
  if (!match || Number(match[3]) > 65_535) {
    throw new EndpointFlagError(
      `--${flag} "${value}" is not an address to listen on`,
      'give host:port, e.g. ":8443" (every interface), "127.0.0.1:8080" or "[::1]:8080", or "0" to turn the endpoint off',
    );
  }
  return { host: match[1] ?? (match[2] || "0.0.0.0"), port: Number(match[3]) };
}
