/**
 * The fleet's metrics: clusters engaged, engagements (and those that failed) and disengagements
 * with their reason, and provider failures. Declared here, as the catalogue (`kubeloop/metrics`)
 * declares a manager's, and registered on the registry the fleet is given.
 */
import { Counter, Gauge, type Registry } from "prom-client";
import { type MetricDefinition, promClientConfig } from "../metrics/index.ts";

/** The metrics a {@link FleetMetrics} exposes. */
export const FLEET_METRICS = {
  clustersEngaged: {
    name: "kubeloop_fleet_clusters_engaged",
    type: "gauge",
    help: "Clusters engaged now: each with a client, a cache and the fleet's controllers running",
    labelNames: [],
  },
  clustersHeld: {
    name: "kubeloop_fleet_clusters_held",
    type: "gauge",
    help: "Clusters this replica holds: their Lease (with replicas), else every cluster offered",
    labelNames: [],
  },
  engagements: {
    name: "kubeloop_fleet_engagements_total",
    type: "counter",
    help: "Clusters engaged, per reason (discovered, recovered)",
    labelNames: ["reason"],
  },
  engagementFailures: {
    name: "kubeloop_fleet_engagement_failures_total",
    type: "counter",
    help: "Engagements of a cluster that failed, per reason (setup failed: the fleet's setup threw; tried again at the next answered probe)",
    labelNames: ["reason"],
  },
  disengagements: {
    name: "kubeloop_fleet_disengagements_total",
    type: "counter",
    help: "Clusters disengaged (informers stopped, reconciles drained and fenced), per reason",
    labelNames: ["reason"],
  },
  providerFailures: {
    name: "kubeloop_fleet_provider_failures_total",
    type: "counter",
    help: "Runs of a cluster provider that failed (it is run again after a backoff)",
    labelNames: ["provider"],
  },
} as const satisfies Record<string, MetricDefinition>;

/** The fleet's counters and gauge on one registry. */
export class FleetMetrics {
  readonly #engagements: Counter<"reason">;
  readonly #engagementFailures: Counter<"reason">;
  readonly #disengagements: Counter<"reason">;
  readonly #providerFailures: Counter<"provider">;

  /** Registers the metrics on `registry`; the gauges read `counts` when scraped. */
  constructor(registry: Registry, counts: { engaged: () => number; held: () => number }) {
    readGauge(FLEET_METRICS.clustersEngaged, registry, counts.engaged);
    readGauge(FLEET_METRICS.clustersHeld, registry, counts.held);
    this.#engagements = new Counter(promClientConfig(FLEET_METRICS.engagements, registry));
    this.#engagementFailures = new Counter(promClientConfig(FLEET_METRICS.engagementFailures, registry));
    this.#disengagements = new Counter(promClientConfig(FLEET_METRICS.disengagements, registry));
    this.#providerFailures = new Counter(promClientConfig(FLEET_METRICS.providerFailures, registry));
  }

  /** A cluster was engaged. */
  engaged(reason: string): void {
    this.#engagements.inc({ reason });
  }

  /** A cluster could not be engaged. */
  engagementFailed(reason: string): void {
    this.#engagementFailures.inc({ reason });
  }

  /** A cluster was disengaged. */
  disengaged(reason: string): void {
    this.#disengagements.inc({ reason });
  }

  /** A provider's run failed. */
  providerFailed(provider: string): void {
    this.#providerFailures.inc({ provider });
  }
}

/** Registers the gauge `definition` on `registry`, set from `read` when scraped. */
function readGauge(definition: MetricDefinition, registry: Registry, read: () => number): void {
  new Gauge({
    ...promClientConfig(definition, registry),
    collect() {
      this.set(read());
    },
  });
}
