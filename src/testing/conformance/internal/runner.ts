/**
 * The body of an operator process of the conformance kit (see `operator-process.ts`): loads the
 * operator, runs its controllers in a manager against the kubeconfig it is given (the fault
 * proxy's), or in a fleet on each member cluster it is given (`hosts.ts`), serves metrics and the operator's webhooks (with a certificate of its own, applying the
 * session's configurations) on free loopback ports, and answers the kit over Node's IPC channel:
 * force a reconcile of every object, report whether it is idle and its last reconciles, stop. It
 * loads the operator and waits for the kit's `start` (so the kit can fork the next process ahead). Run by the bundle the
 * kit builds (`runner-bundle.ts`, the operator imported statically) or by `operator-main.ts`.
 */
import pino from "pino";
import type { Manager } from "../../../manager/index.ts";
import { METRICS, type MetricDefinition } from "../../../metrics/index.ts";
import type { Operator } from "../../../operator/index.ts";
import { hostInFleet, hostInManager, type OperatorHost } from "./hosts.ts";
import {
  type ReconcileOutcome,
  RUNNER_ENV,
  type RunnerMessage,
  type RunnerRequest,
  type RunnerSettings,
  type RunnerState,
} from "./protocol.ts";

const send = (message: RunnerMessage) => process.send?.(message);

function settings(): RunnerSettings {
  const raw = process.env[RUNNER_ENV];
  if (!raw) throw new Error(`${RUNNER_ENV} is not set: the conformance kit starts this process`);
  return JSON.parse(raw) as RunnerSettings;
}

/** Sums the values of a metric of the managers' registries. */
async function total(managers: readonly Manager[], metric: MetricDefinition): Promise<number> {
  let sum = 0;
  for (const manager of managers) {
    const registered = manager.metrics.registry.getSingleMetric(metric.name);
    const values = registered ? (await registered.get()).values : [];
    sum += values.reduce((s, v) => s + v.value, 0);
  }
  return sum;
}

async function state(host: OperatorHost): Promise<RunnerState> {
  const managers = host.managers();
  const queued = await total(managers, METRICS.queueDepth);
  const active = await total(managers, METRICS.activeWorkers);
  const reconciles = await total(managers, METRICS.reconcileTotal);
  const idle = host.ready() && queued === 0 && active === 0;
  return { idle, queued, active, reconciles, shards: managers.flatMap((m) => m.shardsHeld()) };
}

function reconcileAll(managers: readonly Manager[]): number {
  const controllers = managers.flatMap((m) => m.controllers);
  return controllers.reduce((sum, controller) => sum + controller.enqueueAll("conformance"), 0);
}

/** Every controller's last reconciles, oldest first. */
function reconciles(managers: readonly Manager[]): ReconcileOutcome[] {
  const outcomes = managers
    .flatMap((m) => m.controllers)
    .flatMap((controller) =>
      controller.recentReconciles().map(
        ({ item, seconds, result, error }): ReconcileOutcome => ({
          apiVersion: controller.primary.apiVersion,
          kind: controller.primary.kind,
          key: item.key,
          result,
          ...(error === undefined ? {} : { error: error instanceof Error ? error.message : String(error) }),
          endedAt: item.startedAt + seconds * 1000,
        }),
      ),
    );
  return outcomes.sort((a, b) => a.endedAt - b.endedAt);
}

/** Resolves on the kit's `start`: a process may be forked ahead, loaded, and started when needed. */
function started(): Promise<void> {
  return new Promise((resolve) => {
    // The kit went away before starting this process: nothing to do.
    const onDisconnect = () => process.exit(0);
    const onMessage = (raw: unknown) => {
      if ((raw as RunnerRequest).type !== "start") return;
      process.off("message", onMessage);
      process.off("disconnect", onDisconnect);
      resolve();
    };
    process.on("message", onMessage);
    process.once("disconnect", onDisconnect);
  });
}

async function main(load: (path: string) => Promise<Operator>): Promise<void> {
  const config = settings();
  const go = started();
  const operator = await load(config.operator);
  send({ type: "loaded" });
  await go;
  const logger = pino({ name: operator.name, level: config.logLevel }, pino.destination(2));
  const stop = new AbortController();
  const host = config.fleet
    ? await hostInFleet(operator, config, config.fleet, logger, stop.signal)
    : await hostInManager(operator, config, logger, stop.signal);
  process.on("message", (raw) => {
    const request = raw as RunnerRequest;
    if (request.type === "reconcile-all")
      send({ type: "reply", id: request.id, enqueued: reconcileAll(host.managers()) });
    if (request.type === "state")
      void state(host).then((s) => send({ type: "reply", id: request.id, state: s }));
    if (request.type === "reconciles")
      send({ type: "reply", id: request.id, reconciles: reconciles(host.managers()) });
    if (request.type === "stop") stop.abort();
  });
  // The kit went away: stop too, rather than run on unsupervised.
  process.on("disconnect", () => stop.abort());
  while (!host.ready() && !stop.signal.aborted) await new Promise((r) => setTimeout(r, 50));
  send({ type: "ready", metricsPort: host.metricsPort() });
  await host.running;
}

/**
 * Runs the operator `load` returns (given the module's path of the kit's settings) until the kit
 * stops it, then exits; a failure is sent to the kit before exiting with code 1.
 */
export async function runOperatorProcess(load: (path: string) => Promise<Operator>): Promise<void> {
  try {
    await main(load);
    process.exit(0);
  } catch (err) {
    send({ type: "failed", error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    process.exitCode = 1;
    process.disconnect?.();
  }
}
