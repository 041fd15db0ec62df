/**
 * Each engaged cluster's metrics on the fleet's registry, labelled `cluster`. A cluster's manager
 * keeps its metrics (the catalogue's: reconciles, queues, informers, client requests) on a
 * registry of its own; for each catalogue metric a cluster reports, the fleet's registry holds one
 * metric under the same name that, when collected, reads every attached cluster's and adds the
 * `cluster` label to its series, as multicluster-runtime labels them. A metric of that name
 * already on the registry (a host manager's own) is kept inside it, its series unlabelled.
 * Detaching a cluster forgets its registry: its series go at once, and nothing of its manager
 * stays referenced, so a disengaged cluster's memory is given back.
 */
import type { Metric, Registry } from "prom-client";
import { CLUSTER_LABEL, METRICS, type MetricDefinition } from "../metrics/index.ts";

/** One value of a collected metric, as prom-client's registry formats it. */
interface Sample {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/** What prom-client's registry reads of a metric when it collects (and resets). */
interface Collectable {
  get(): Promise<{ values: Sample[] }> | { values: Sample[] };
  reset?(): void;
}

/** The clusters' registries whose metrics a fleet's registry shows, by cluster name. */
export class ClusterMetrics {
  readonly #registry: Registry;
  readonly #clusters = new Map<string, Registry>();

  /** Shows the attached clusters' metrics on `registry`. */
  constructor(registry: Registry) {
    this.#registry = registry;
  }

  /**
   * Shows the metrics of `source` (cluster `cluster`'s manager's registry) until the function it
   * returns is called. A cluster attached again under the same name replaces the earlier one.
   */
  attach(cluster: string, source: Registry): () => void {
    for (const definition of Object.values(METRICS) as MetricDefinition[])
      if (source.getSingleMetric(definition.name)) this.#labelled(definition);
    this.#clusters.set(cluster, source);
    return () => {
      if (this.#clusters.get(cluster) === source) this.#clusters.delete(cluster);
    };
  }

  /** Registers the labelled metric of `definition`, once, around a metric of that name already there. */
  #labelled(definition: MetricDefinition): void {
    const present = this.#registry.getSingleMetric(definition.name);
    if (present instanceof ClusterLabelled) return;
    if (present) this.#registry.removeSingleMetric(definition.name);
    const labelled = new ClusterLabelled(definition, this.#clusters, present as Collectable | undefined);
    this.#registry.registerMetric(labelled as unknown as Metric);
  }
}

/** A catalogue metric as the fleet's registry shows it: the own series, then each cluster's, labelled. */
class ClusterLabelled {
  /** What prom-client's registry reads of a metric. */
  readonly name: string;
  readonly help: string;
  readonly type: MetricDefinition["type"];
  readonly aggregator = "sum" as const;
  readonly #clusters: ReadonlyMap<string, Registry>;
  readonly #own: Collectable | undefined;

  constructor(definition: MetricDefinition, clusters: ReadonlyMap<string, Registry>, own?: Collectable) {
    this.name = definition.name;
    this.help = definition.help;
    this.type = definition.type;
    this.#clusters = clusters;
    this.#own = own;
  }

  /** The own series and every attached cluster's, each labelled with its cluster's name. */
  async get() {
    const values = this.#own ? [...(await this.#own.get()).values] : [];
    for (const [cluster, registry] of this.#clusters) {
      const metric = registry.getSingleMetric(this.name) as Collectable | undefined;
      for (const sample of metric ? (await metric.get()).values : [])
        values.push({ ...sample, labels: { ...sample.labels, [CLUSTER_LABEL]: cluster } });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** Resets the own series, as `registry.resetMetrics()` asks; the clusters' are their managers'. */
  reset(): void {
    this.#own?.reset?.();
  }
}
