/**
 * Runs the fleet example: a manager of the hub for the FleetConfigMaps, and a `Fleet` engaging the
 * member clusters of the hub's kubeconfig Secrets, each watching the FleetConfigMaps' children there.
 */
import { type Client, Manager } from "kubeloop";
import { Fleet, type FleetOptions, kubeconfigSecretProvider } from "kubeloop/multicluster";
import { FleetConfigMaps } from "./controller.ts";

/** Options of {@link startFleetConfigMaps}. */
export interface FleetConfigMapsRun {
  /** A client of the hub. */
  hub: Client;
  /** The hub namespace of the members' kubeconfig Secrets. */
  fleetNamespace: string;
  /** Stops both the hub's manager and the fleet. */
  signal: AbortSignal;
  /** Tuning of the fleet (probes, grace, logger). */
  fleet?: Pick<FleetOptions, "probe" | "gracefulShutdownMs" | "logger">;
}

/** The running example. */
export interface RunningFleetConfigMaps {
  readonly manager: Manager;
  readonly fleet: Fleet;
  /** Resolves once both stopped after the signal aborted. */
  readonly stopped: Promise<void>;
}

/**
 * Starts the example against the hub: the hub's manager (no leader election, endpoints or live
 * page) and the fleet of the members found in `fleetNamespace`.
 */
export async function startFleetConfigMaps(run: FleetConfigMapsRun): Promise<RunningFleetConfigMaps> {
  const name = "fleet-configmap";
  const operator = new FleetConfigMaps({
    fleetNamespace: run.fleetNamespace,
    whyNotEngaged: (member): string | undefined => fleet.clusters().find((c) => c.name === member)?.reason,
  });
  const manager = await Manager.create({
    name,
    client: run.hub,
    leaderElection: false,
    metrics: false,
    health: false,
    livePage: false,
    logger: run.fleet?.logger,
  });
  operator.setupHub(manager);
  const provider = kubeconfigSecretProvider({ client: run.hub, namespace: run.fleetNamespace });
  const fleet: Fleet = new Fleet({
    name,
    providers: [provider],
    setup: operator.children.setup,
    ...run.fleet,
  });
  const stopped = Promise.all([manager.start(run.signal), fleet.start(run.signal)]).then(() => undefined);
  return { manager, fleet, stopped };
}
