/**
 * Where an operator process of the conformance kit runs the operator's controllers: in one manager
 * on the kubeconfig of the run (the proxy's), or in a fleet (`kubeloop/multicluster`), a manager
 * per member cluster, each reached through its own proxy, with the members' metrics on the fleet's
 * registry (labelled `cluster`) served on one `/metrics`.
 */
import type { Logger } from "pino";
import { loadKubeconfig } from "../../../client/index.ts";
import { untilAborted } from "../../../clock/index.ts";
import { serveEndpoints } from "../../../endpoints/index.ts";
import { Manager, type ManagerOptions } from "../../../manager/index.ts";
import { type ClusterProvider, Fleet } from "../../../multicluster/index.ts";
import type { Operator } from "../../../operator/index.ts";
import { admissionsOf } from "../../../webhook/index.ts";
import type { RunnerMember, RunnerSettings } from "./protocol.ts";

/**
 * Where the operator's controllers run: one manager, or one per engaged member of a fleet; whether
 * every one has synced, the port of `/metrics`, and the run, which ends once stopped.
 */
export interface OperatorHost {
  managers(): Manager[];
  ready(): boolean;
  metricsPort(): number;
  readonly running: Promise<void>;
}

/** The operator's informer tuning of the run: the kit's short watch inactivity and relist period. */
function runnerCache(config: RunnerSettings): ManagerOptions["cache"] {
  return {
    informer: { watch: { inactivityMs: config.watchInactivityMs }, relist: { periodMs: config.relistMs } },
  };
}

/** The operator's controllers in one manager on the kubeconfig of the run. */
export async function hostInManager(
  operator: Operator,
  config: RunnerSettings,
  logger: Logger,
  signal: AbortSignal,
): Promise<OperatorHost> {
  const manager = await Manager.create({
    name: operator.name,
    config: { kubeconfig: config.kubeconfig },
    namespace: operator.definition.watchNamespace,
    leaderElection: config.leaderElection ?? false,
    sharding: config.sharding ?? false,
    metrics: { host: "127.0.0.1", port: 0 },
    health: { host: "127.0.0.1", port: 0 },
    cache: runnerCache(config),
    logger,
    // Conversions are served by the kit's own process (one host for the cluster, up while this one crashes).
    webhooks: admissionsOf(operator.definition.webhooks),
    webhookServer: { port: 0, ...config.webhooks },
  });
  await manager.setup(operator.setup);
  return {
    managers: () => [manager],
    ready: () => manager.ready,
    metricsPort: () => manager.ports.metrics ?? 0,
    running: manager.start(signal),
  };
}

/**
 * The operator's controllers in a fleet engaging each of `members` (a manager of its own each, as
 * a fleet operator's `setup` runs on each cluster); ready once every member is engaged and synced.
 * The kit serves no admission webhooks for a fleet, and each member's manager watches every
 * namespace, as a fleet's do (the operator's `watchNamespace` is not applied).
 */
export async function hostInFleet(
  operator: Operator,
  config: RunnerSettings,
  members: readonly RunnerMember[],
  logger: Logger,
  signal: AbortSignal,
): Promise<OperatorHost> {
  const managers = new Map<string, Manager>();
  const fleet = new Fleet({
    name: operator.name,
    providers: [membersProvider(members)],
    setup: (manager, cluster) => {
      managers.set(cluster.name, manager);
      manager.add({
        name: "conformance-member",
        start: async ({ signal: disengaged }) => {
          await untilAborted(disengaged);
          if (managers.get(cluster.name) === manager) managers.delete(cluster.name);
        },
      });
      return manager.setup(operator.setup);
    },
    cache: runnerCache(config),
    logger,
  });
  const metrics = await serveEndpoints("127.0.0.1", 0, { metrics: fleet.registry });
  const running = fleet.start(signal).finally(() => metrics.server.close());
  return {
    managers: () => [...managers.values()],
    ready: () => {
      const states = fleet.clusters();
      return members.every((m) => states.some((s) => s.name === m.name && s.engaged && s.synced));
    },
    metricsPort: () => metrics.port,
    running,
  };
}

/** Offers each member, by name, with the connection of its kubeconfig. */
function membersProvider(members: readonly RunnerMember[]): ClusterProvider {
  return {
    name: "conformance-members",
    async run(sink, signal) {
      for (const m of members) sink.engage(m.name, await loadKubeconfig({ kubeconfig: m.kubeconfig }));
      sink.ready();
      await untilAborted(signal);
    },
  };
}
