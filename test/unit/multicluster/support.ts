/** Helpers of the multicluster unit tests: a provider the test drives, and fleets on a FakeClock. */
import { pino } from "pino";
import { ConfigMap, type KubeObject, resourceType } from "../../../src/api/index.ts";
import { type ClusterConnection, WriteFencedError } from "../../../src/client/index.ts";
import { FakeClock, untilAborted } from "../../../src/clock/index.ts";
import { controller } from "../../../src/controller/index.ts";
import {
  type ClusterProvider,
  type ClusterSink,
  Fleet,
  type FleetCluster,
  type FleetOptions,
} from "../../../src/multicluster/index.ts";
import { fakeConnection } from "../client/support.ts";
import { until } from "../controller/support.ts";

/** A kind the fleets' controllers reconcile. */
export const Widget = resourceType<KubeObject>("example.com/v1", "Widget", "widgets", true);

/** A connection refused at once (nothing listens on port 1), so informers never sync. */
export function refusedConnection(): ClusterConnection {
  return { ...fakeConnection(), server: "https://127.0.0.1:1" };
}

/** A provider whose sink the test holds, once the fleet runs it. */
export class DrivenProvider implements ClusterProvider {
  readonly name = "driven";
  sink: ClusterSink | undefined;
  runs = 0;
  /** Failures the next runs throw, one each. */
  failures: Error[] = [];

  async run(sink: ClusterSink, signal: AbortSignal): Promise<void> {
    this.runs++;
    const failure = this.failures.shift();
    if (failure) throw failure;
    this.sink = sink;
    await untilAborted(signal);
  }
}

/**
 * A started fleet on a FakeClock with a controller of {@link Widget} per cluster, whose provider's
 * first runs throw `failures`; `stop()` ends it.
 */
export function startedFleet(options: Partial<FleetOptions> = {}, failures: Error[] = []) {
  const clock = new FakeClock();
  const provider = new DrivenProvider();
  provider.failures = failures;
  const setups: FleetCluster[] = [];
  const fleet = new Fleet({
    name: "widgets",
    providers: [provider],
    setup: (manager, cluster) => {
      setups.push(cluster);
      return controller(manager)
        .for(Widget)
        .reconcile(async () => undefined);
    },
    logger: pino({ level: "silent" }),
    probeWith: async () => undefined,
    probe: { intervalMs: 1000, failureThreshold: 2 },
    gracefulShutdownMs: 0,
    clock,
    ...options,
  });
  const stopping = new AbortController();
  const running = fleet.start(stopping.signal);
  const stop = async () => {
    stopping.abort();
    await running;
  };
  return { fleet, provider, setups, clock, stop };
}

/** Advances `clock` a second at a time (letting the loops run between) until `done` holds, 30 s at most. */
export async function tickUntil(clock: FakeClock, done: () => boolean): Promise<void> {
  for (let i = 0; i < 30 && !done(); i++) {
    await clock.advance(1000);
    await until(done);
  }
}

/** A kubeconfig for `server` with a token, as a provider reads it from a Secret or a file. */
export function kubeconfigText(server: string): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    "current-context": "c",
    clusters: [{ name: "c", cluster: { server, "insecure-skip-tls-verify": true } }],
    users: [{ name: "u", user: { token: "t" } }],
    contexts: [{ name: "c", context: { cluster: "c", user: "u" } }],
  });
}

/** A sink recording what a provider tells it, one line per call: `engage <name> <server>`. */
export function recordingSink(): ClusterSink & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    engage: (name, connection) => calls.push(`engage ${name} ${connection.server}`),
    disengage: (name, reason) => calls.push(`disengage ${name}: ${reason}`),
    ready: () => calls.push("ready"),
  };
}

/**
 * Lets callbacks and file reads (kubeconfigs are parsed from temporary files, on libuv's thread
 * pool) run until `done` holds, for 10 s of event-loop turns at most: no timer is waited on.
 */
export async function settled(done: () => boolean): Promise<void> {
  const deadline = performance.now() + 10_000;
  while (!done() && performance.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
}

/** A ConfigMap to write in a cluster. */
export const configMap = {
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "x", namespace: "default" },
} as const;

/** Whether the writes of `cluster` are fenced: a create is refused before anything is sent. */
export async function fenced(cluster: FleetCluster): Promise<boolean> {
  return cluster.client.create(ConfigMap, configMap).then(
    () => false,
    (err: unknown) => err instanceof WriteFencedError,
  );
}
