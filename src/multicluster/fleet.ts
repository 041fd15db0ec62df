/**
 * The fleet: runs its providers, keeps a {@link ClusterSlot} per cluster they offer (engaged
 * while it answers) — with `replicas`, per cluster this replica holds the Lease of
 * ({@link ClusterCoordinator}) — and shows what is engaged, why, and how many informers each runs;
 * each engaged cluster's metrics are on its registry, labelled `cluster` ({@link ClusterMetrics}),
 * and, given a manager, its readiness and clusters are on that manager's `/readyz` and live page.
 */
import pino, { type Logger } from "pino";
import { Registry } from "prom-client";
import type { ClientOptions, ClusterConnection } from "../client/index.ts";
import { type Clock, systemClock, untilAborted } from "../clock/index.ts";
import type { LiveCluster } from "../endpoints/index.ts";
import type { Manager, ManagerOptions } from "../manager/index.ts";
import { ClusterMetrics } from "./cluster-metrics.ts";
import type { FleetSetup } from "./engaged.ts";
import { FleetMetrics } from "./metrics.ts";
import type { ClusterProvider, ClusterSink } from "./provider.ts";
import { ClusterCoordinator, type FleetReplicasOptions } from "./replicas.ts";
import { ClusterSlot, type ClusterState, discoveryProbe, type Probe, type ProbeOptions } from "./slot.ts";

/** Options of a {@link Fleet}. */
export interface FleetOptions {
  /** The operator's name: the field manager of its writes in every cluster. */
  name: string;
  /** Where clusters come from. A cluster's name must be unique across them. */
  providers: readonly ClusterProvider[];
  /** Builds the controllers on each engaged cluster's manager. */
  setup: FleetSetup;
  /** Default: pino named after the operator, at `$LOG_LEVEL` (default `info`). */
  logger?: Logger;
  /**
   * A manager of this process (the hub's) whose endpoints show the fleet: its registry gets the
   * fleet's metrics and each engaged cluster's, its `/readyz` the check `fleet` ({@link
   * Fleet.readiness}), its live page the clusters. Give it before the manager starts.
   */
  manager?: Manager;
  /**
   * Registry of the fleet's metrics and of each engaged cluster's (the manager's metrics, labelled
   * `cluster`). Default: the `manager`'s, else a new one.
   */
  registry?: Registry;
  /** How engaged clusters are checked. */
  probe?: ProbeOptions;
  /** The probe itself; default a GET of `/api`. */
  probeWith?: Probe;
  /** How long a disengaged cluster's reconciles may drain (fenced) before they abort. Default 5 s. */
  gracefulShutdownMs?: number;
  /** Tuning of each cluster's client. */
  clientOptions?: ClientOptions;
  /** Tuning of each cluster's informer cache (watch inactivity, relists, budgets), as a manager's. */
  cache?: ManagerOptions["cache"];
  /**
   * Spreads the clusters over the operator's replicas, a Lease per cluster in the hub: every
   * replica runs the providers and engages only the clusters it holds. Default: this process
   * engages every cluster.
   */
  replicas?: FleetReplicasOptions;
  clock?: Clock;
}

/**
 * Runs controllers across the clusters its providers discover: each cluster engaged gets a
 * client, a cache and the controllers `setup` builds; one disengaged has its writes fenced, its
 * reconciles drained and its informers stopped and dropped.
 *
 * @example
 * ```ts
 * const fleet = new Fleet({
 *   name: "copier",
 *   providers: [kubeconfigSecretProvider({ client: hub, namespace: "fleet" })],
 *   setup: (manager, cluster) => controller(manager).for(ConfigMap).reconcile(inCluster(cluster, copy)),
 * });
 * await fleet.start(AbortSignal.timeout(60_000));
 * ```
 */
export class Fleet {
  readonly logger: Logger;
  /** The registry its metrics are on. */
  readonly registry: Registry;
  readonly #options: FleetOptions;
  readonly #clock: Clock;
  readonly #metrics: FleetMetrics;
  readonly #clusterMetrics: ClusterMetrics;
  readonly #slots = new Map<string, ClusterSlot>();
  /** Slots dropped and still disengaging: shown by {@link clusters} until they are done. */
  readonly #stopping = new Map<ClusterSlot, Promise<void>>();
  /** Providers whose last run failed and that have not reported ready since. */
  readonly #failing = new Set<string>();
  /** With `replicas`: the clusters offered now, held or not, and who shares them out. */
  readonly #offered = new Map<string, ClusterConnection>();
  readonly #coordinator: ClusterCoordinator | undefined;
  /** With `replicas`: the clusters this replica holds and has not been told to give up. */
  readonly #holding = new Set<string>();

  constructor(options: FleetOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.logger = options.logger ?? pino({ name: options.name, level: process.env.LOG_LEVEL ?? "info" });
    this.registry = options.registry ?? options.manager?.metrics.registry ?? new Registry();
    this.#metrics = new FleetMetrics(this.registry, {
      engaged: () => this.clusters().filter((c) => c.engaged).length,
      held: () => this.held().length,
    });
    this.#clusterMetrics = new ClusterMetrics(this.registry);
    this.#coordinator = options.replicas && this.#coordinatorOf(options.replicas);
    options.manager?.showFleet(this);
  }

  /** The clusters this replica holds (with `replicas`), or every cluster offered, by name. */
  held(): string[] {
    return this.#coordinator?.held() ?? [...this.#slots.keys()].sort();
  }

  /** Every cluster offered now, engaged or not, and those still disengaging, sorted by name. */
  clusters(): ClusterState[] {
    return this.#slotsShown().map((s) => s.state());
  }

  /** The slots of every cluster offered now and of those still disengaging, sorted by name. */
  #slotsShown(): ClusterSlot[] {
    const slots = [...this.#slots.values(), ...this.#stopping.keys()];
    return slots.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** What the live page shows of every cluster {@link clusters} lists: its state and, while engaged, what it runs. */
  readonly liveClusters = (): Promise<LiveCluster[]> => Promise.all(this.#slotsShown().map((s) => s.live()));

  /**
   * `true` while every provider runs, else throws naming those that failed (they are being run
   * again), so `/readyz` fails with that message: a `Check`, on the `manager`'s `/readyz` when given
   * one, else e.g. `serveEndpoints(host, port, { health: { healthz: {}, readyz: { fleet: fleet.readiness } } })`.
   */
  readonly readiness = (): true => {
    if (this.#failing.size === 0) return true;
    throw new Error(`cluster providers failing: ${[...this.#failing].join(", ")}`);
  };

  /** Runs the providers until `signal` aborts, then disengages every cluster and resolves. */
  async start(signal: AbortSignal): Promise<void> {
    const providers = this.#options.providers.map((p) => this.#runProvider(p, signal));
    await Promise.all([...providers, this.#coordinator?.run(signal)]);
    await Promise.all([...this.#slots.values()].map((slot) => this.#drop(slot, "fleet stopping")));
    await Promise.all(this.#stopping.values());
  }

  /** Runs `provider` until `signal` aborts, again after a backoff (1 s doubling to 30 s) when it fails. */
  async #runProvider(provider: ClusterProvider, signal: AbortSignal): Promise<void> {
    for (let attempt = 0; !signal.aborted; attempt++) {
      try {
        await provider.run(this.#sink(provider.name), signal);
        return;
      } catch (err) {
        if (signal.aborted) return;
        this.#failing.add(provider.name);
        this.#metrics.providerFailed(provider.name);
        this.logger.error({ err, provider: provider.name }, "cluster provider failed; running it again");
        await this.#clock.sleep(Math.min(30_000, 1000 * 2 ** attempt), signal).catch(() => {});
      }
    }
  }

  /** What `provider` reports clusters to. */
  #sink(provider: string): ClusterSink {
    return {
      engage: (name, connection) => this.#offer(name, connection),
      disengage: (name, reason) => {
        this.#offered.delete(name);
        this.#coordinator?.offer(this.#offered.keys());
        const slot = this.#slots.get(name);
        if (slot) void this.#drop(slot, reason);
      },
      ready: () => this.#failing.delete(provider),
    };
  }

  /** Engages cluster `name` now without `replicas`, else when this replica holds it (again, if it does). */
  #offer(name: string, connection: ClusterConnection): void {
    this.#offered.set(name, connection);
    this.#coordinator?.offer(this.#offered.keys());
    if (!this.#coordinator || this.#holding.has(name)) this.#engage(name, connection);
  }

  #coordinatorOf(replicas: FleetReplicasOptions): ClusterCoordinator {
    return new ClusterCoordinator({
      ...replicas,
      name: this.#options.name,
      clock: this.#clock,
      onCluster: (name, signal, lost) => this.#hold(name, signal, lost),
      onError: (err, phase) =>
        this.logger.error({ err, phase }, "sharing the clusters among replicas failed"),
    });
  }

  /**
   * Engages cluster `name` while this replica holds its Lease: fenced at once when the Lease is
   * lost, disengaged (drained) when `signal` aborts; resolves once no engagement of it is left.
   */
  async #hold(name: string, signal: AbortSignal, lost: AbortSignal): Promise<void> {
    const fence = () => {
      for (const slot of this.#named(name)) slot.fence("cluster Lease lost");
    };
    lost.addEventListener("abort", fence, { once: true });
    this.#holding.add(name);
    const connection = this.#offered.get(name);
    if (connection) this.#engage(name, connection);
    this.logger.info({ cluster: name, held: this.held() }, "cluster held");
    await untilAborted(signal);
    this.#holding.delete(name);
    const slot = this.#slots.get(name);
    if (slot) void this.#drop(slot, lost.aborted ? "cluster Lease lost" : "cluster given up");
    await Promise.all(this.#named(name).map((s) => this.#stopping.get(s)));
    lost.removeEventListener("abort", fence);
    this.logger.info({ cluster: name, held: this.held() }, "cluster released");
  }

  /** Every slot of cluster `name`: the running one and those still disengaging. */
  #named(name: string): ClusterSlot[] {
    return [...this.#slots.values(), ...this.#stopping.keys()].filter((slot) => slot.name === name);
  }

  #engage(name: string, connection: ClusterConnection): void {
    const previous = this.#slots.get(name);
    if (previous) void this.#drop(previous, "connection changed");
    const { name: operator, setup, gracefulShutdownMs = 5000, clientOptions, cache } = this.#options;
    const slot = new ClusterSlot(name, connection, {
      name: operator,
      setup,
      logger: this.logger,
      clock: this.#clock,
      gracefulShutdownMs,
      clientOptions,
      cache,
      metrics: this.#metrics,
      clusterMetrics: this.#clusterMetrics,
      probe: { intervalMs: 5000, failureThreshold: 3, timeoutMs: 5000, ...this.#options.probe },
      probeWith: this.#options.probeWith ?? discoveryProbe,
    });
    this.#slots.set(name, slot);
    slot.start();
  }

  /** Stops `slot` for `reason` and forgets it (unless it was replaced already). */
  #drop(slot: ClusterSlot, reason: string): Promise<void> {
    if (this.#slots.get(slot.name) === slot) this.#slots.delete(slot.name);
    const stopped = slot.stop(reason).finally(() => this.#stopping.delete(slot));
    this.#stopping.set(slot, stopped);
    return stopped;
  }
}
