/**
 * One engaged cluster: a client, a manager of its own (its informer cache and the fleet's
 * controllers, with no leader election, endpoints or live page) and the fence of its writes. Its
 * manager's metrics (its client's requests among them) show on the fleet's registry, labelled
 * with the cluster, while it is engaged. Disengaging takes them off, fences the writes, then stops
 * the manager: its reconciles drain (aborted after the grace period) writing nothing more, and its
 * informers stop; the fleet then drops it.
 */
import type { Logger } from "pino";
import type { InformerCache } from "../cache/index.ts";
import {
  Client,
  type ClientMetrics,
  type ClientOptions,
  type ClusterConnection,
  type RequestObservation,
  type RetryObservation,
} from "../client/index.ts";
import type { Clock } from "../clock/index.ts";
import { type LiveManagerState, liveState } from "../endpoints/index.ts";
import { Manager, type ManagerOptions } from "../manager/index.ts";
import type { ClusterMetrics } from "./cluster-metrics.ts";

/** A cluster as the fleet's controllers see it: `ctx.cluster` in a reconcile. */
export interface FleetCluster {
  /** The name its provider gave it. */
  readonly name: string;
  /** Its client, fenced once the cluster is disengaged. */
  readonly client: Client;
  /** Its informer cache. */
  readonly cache: InformerCache;
}

/**
 * Builds the fleet's controllers on the manager of one engaged cluster, with `controller(manager)`
 * as for a single cluster; what it returns (a builder's declaration) is awaited and ignored.
 */
export type FleetSetup = (manager: Manager, cluster: FleetCluster) => unknown;

/** What engaging a cluster needs from the fleet. */
export interface EngageDeps {
  /** The operator's name: field manager of the writes. */
  name: string;
  setup: FleetSetup;
  logger: Logger;
  clock: Clock;
  clientOptions?: ClientOptions;
  /** Tuning of the cluster's informer cache. */
  cache?: ManagerOptions["cache"];
  gracefulShutdownMs: number;
  /** Where each engaged cluster's metrics are shown. */
  clusterMetrics: ClusterMetrics;
}

/** A running engagement of one cluster. */
export class Engagement {
  readonly cluster: FleetCluster;
  readonly #manager: Manager;
  readonly #client: Client;
  readonly #fence: AbortController;
  readonly #stop = new AbortController();
  /** Takes its metrics off the fleet's registry. */
  readonly #detach: () => void;
  #running: Promise<void> = Promise.resolve();

  private constructor(
    manager: Manager,
    client: Client,
    fence: AbortController,
    name: string,
    deps: EngageDeps,
  ) {
    this.#manager = manager;
    this.#client = client;
    this.#fence = fence;
    this.cluster = { name, client: manager.client, cache: manager.cache };
    this.#detach = deps.clusterMetrics.attach(name, manager.metrics.registry);
  }

  /** Connects to cluster `name`, builds the controllers on a manager of its own, and starts it. */
  static async start(
    name: string,
    connection: ClusterConnection,
    deps: EngageDeps,
    onFailure: (err: unknown) => void,
  ): Promise<Engagement> {
    const metrics = new LateClientMetrics();
    const client = new Client(connection, {
      fieldManager: deps.name,
      clock: deps.clock,
      ...deps.clientOptions,
      metrics,
    });
    const fence = new AbortController();
    const manager = await Manager.create({
      name: deps.name,
      client: client.fenced(fence.signal),
      metrics: false,
      health: false,
      livePage: false,
      leaderElection: false,
      gracefulShutdownMs: deps.gracefulShutdownMs,
      cache: deps.cache,
      logger: deps.logger.child({ cluster: name }),
      clock: deps.clock,
    });
    metrics.target = manager.metrics.client("apiserver");
    const engagement = new Engagement(manager, client, fence, name, deps);
    try {
      await deps.setup(manager, engagement.cluster);
    } catch (err) {
      engagement.#detach();
      await client.close();
      throw err;
    }
    engagement.#running = manager.start(engagement.#stop.signal).catch(onFailure);
    return engagement;
  }

  /** How many informers its cache runs. */
  get informers(): number {
    return this.#manager.cache.informers().length;
  }

  /** Whether its caches have synced and its controllers run. */
  get ready(): boolean {
    return this.#manager.ready;
  }

  /** What its manager runs, as the live page shows a manager's own. */
  async live(): Promise<LiveManagerState> {
    const { ready, controllers, informers, drift } = await liveState(this.#manager.liveSource());
    return { ready, controllers, informers, drift };
  }

  /** Fences its writes at once (its Lease was lost): every write from now on fails. */
  fence(reason: string): void {
    this.#fence.abort(new Error(`cluster ${this.cluster.name} fenced: ${reason}`));
  }

  /**
   * Fences its writes at once, then stops its manager (reconciles drain up to the grace period,
   * then abort; informers stop) and closes its client. Resolves once all of that is done.
   */
  async stop(reason: string): Promise<void> {
    this.#detach();
    this.#fence.abort(new Error(`cluster ${this.cluster.name} disengaged: ${reason}`));
    this.#stop.abort();
    await this.#running;
    await this.#client.close();
  }
}

/**
 * Client hooks that report to `target` once it is set: the client is made first, then the
 * manager whose registry counts its requests.
 */
class LateClientMetrics implements ClientMetrics {
  target: ClientMetrics | undefined;

  request(observation: RequestObservation): void {
    this.target?.request(observation);
  }

  retry(observation: RetryObservation): void {
    this.target?.retry?.(observation);
  }
}
