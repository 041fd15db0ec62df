/**
 * Artillery's telemetry settings, passed to every worker as the Artillery operator did: read once
 * from the operator's own environment (`ARTILLERY_DISABLE_TELEMETRY`, `ARTILLERY_TELEMETRY_DEBUG`),
 * so an administrator who turned telemetry off for the operator turns it off for every worker.
 * Pure apart from the environment handed in.
 */
import type { Container } from "kubeloop/api";

/** What the workers are told about telemetry. */
export interface WorkerTelemetry {
  /** `ARTILLERY_DISABLE_TELEMETRY`: the operator's setting; telemetry stays on when unset, as upstream. */
  readonly disable: boolean;
  /** `ARTILLERY_TELEMETRY_DEBUG`: the operator's setting, off when unset. */
  readonly debug: boolean;
  /** `testRunner` in `ARTILLERY_TELEMETRY_DEFAULTS`: the operator's name. */
  readonly testRunner: string;
}

/** A worker's environment variable. */
type EnvVar = NonNullable<Container["env"]>[number];

/** The values Go's `strconv.ParseBool` reads as true; the Artillery operator parsed these variables with it. */
const TRUE_VALUES: ReadonlySet<string> = new Set(["1", "t", "T", "TRUE", "true", "True"]);

/** The workers' telemetry settings from the operator's environment `env`. */
export function telemetryFrom(
  env: Readonly<Record<string, string | undefined>>,
  testRunner: string,
): WorkerTelemetry {
  const flag = (name: string) => TRUE_VALUES.has(env[name] ?? "");
  return {
    disable: flag("ARTILLERY_DISABLE_TELEMETRY"),
    debug: flag("ARTILLERY_TELEMETRY_DEBUG"),
    testRunner,
  };
}

/** The telemetry variables of every worker, named and formatted as the Artillery operator set them. */
export function telemetryEnv(telemetry: WorkerTelemetry): EnvVar[] {
  return [
    { name: "ARTILLERY_DISABLE_TELEMETRY", value: String(telemetry.disable) },
    { name: "ARTILLERY_TELEMETRY_DEBUG", value: String(telemetry.debug) },
    { name: "ARTILLERY_TELEMETRY_DEFAULTS", value: `{"testRunner": "${telemetry.testRunner}"}` },
  ];
}
