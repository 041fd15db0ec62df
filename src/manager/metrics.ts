/**
 * The manager's Prometheus metrics, named as controller-runtime and client-go name them so
 * existing dashboards and alerts work, plus watch health, each registered from its entry in the
 * catalogue (`src/metrics`). One registry per manager; the hooks the client, watches, queues and
 * controllers call are bound here.
 *
 * Over 400 lines on purpose: one registry's metric declarations, each a few lines, read best
 * together; the batching machinery lives in `internal/batched.ts`.
 */
import { collectDefaultMetrics, Gauge, type LabelValues, Registry } from "prom-client";
import type { ResourceType } from "../api/index.ts";
import type { InformerMetrics, InformerState } from "../cache/index.ts";
import type { ClientMetrics } from "../client/index.ts";
import type { Clock } from "../clock/index.ts";
import type { ControllerMetrics } from "../controller/index.ts";
import { METRICS, type MetricDefinition, promClientConfig } from "../metrics/index.ts";
import type { WorkQueue } from "../queue/index.ts";
import { BatchedCounter, BatchedGauge, BatchedHistogram } from "./internal/batched.ts";
import type { RunnableMetrics } from "./runnable.ts";

const reconcileBuckets = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5,
  1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];
const queueBuckets = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.1, 1, 10, 100, 1000];
const requestBuckets = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];

/** All metrics of one manager. */
export class ManagerMetrics {
  /** The registry `/metrics` serves. */
  readonly registry = new Registry();
  /** The queues of each controller: one, or one per held shard of a sharded manager. */
  readonly #queues = new Map<string, Set<WorkQueue>>();
  /** The sum each {@link #part} reports to, by metric and labels. */
  readonly #gaugeTotals = new Map<BatchedGauge<string>, Map<string, number>>();
  readonly #lastEvent = new Map<string, number>();
  readonly #clock: Clock;

  readonly #reconcileTotal = this.#counter(METRICS.reconcileTotal);
  readonly #reconcileErrors = this.#counter(METRICS.reconcileErrors);
  readonly #terminalErrors = this.#counter(METRICS.terminalReconcileErrors);
  readonly #reconcileTimeouts = this.#counter(METRICS.reconcileTimeouts);
  readonly #reconcileTime = this.#histogram(METRICS.reconcileTime, reconcileBuckets);
  readonly #maxConcurrent = this.#gauge(METRICS.maxConcurrentReconciles);
  readonly #activeWorkers = this.#gauge(METRICS.activeWorkers);
  readonly #handlingErrors = this.#counter(METRICS.reconcileHandlingErrors);
  readonly #ownWritesWaits = this.#counter(METRICS.readOwnWritesWaits);
  readonly #triggers = this.#counter(METRICS.reconcileTriggers);
  readonly #depth = this.#gauge(METRICS.queueDepth);
  readonly #adds = this.#counter(METRICS.queueAdds);
  readonly #queueDuration = this.#histogram(METRICS.queueDuration, queueBuckets);
  readonly #workDuration = this.#histogram(METRICS.workDuration, queueBuckets);
  readonly #retries = this.#counter(METRICS.queueRetries);
  readonly #requests = this.#counter(METRICS.restClientRequests);
  readonly #requestRetries = this.#counter(METRICS.restClientRequestRetries);
  readonly #requestDuration = this.#histogram(METRICS.restClientRequestDuration, requestBuckets);
  readonly #watchEvents = this.#counter(METRICS.watchEvents);
  readonly #watchBytes = this.#counter(METRICS.watchBytes);
  readonly #relists = this.#counter(METRICS.watchRelists);
  readonly #reconnects = this.#counter(METRICS.watchReconnects);
  readonly #outsideShard = this.#counter(METRICS.watchOutsideShard);
  readonly #callbackErrors = this.#counter(METRICS.informerCallbackErrors);
  readonly #informerRestarts = this.#counter(METRICS.informerRestarts);
  readonly #divergence = this.#counter(METRICS.cacheDivergence);
  /** `leader_election_master_status{name}`: 1 while this process leads. */
  readonly leader = this.#gauge(METRICS.leaderElectionMasterStatus);
  /** Outputs repaired after someone else changed or deleted them. */
  readonly #driftRepairs = this.#counter(METRICS.driftRepairs);
  /** The old, unprefixed name of `kubeloop_drift_repairs_total`, counted with it until the next release removes it. */
  readonly #driftRepairsDeprecated = this.#counter(METRICS.driftRepairsDeprecated);

  /** Lease calls of leader election or sharding that failed, each retried next retry period. */
  readonly leaseErrors = this.#counter(METRICS.leaseErrors);
  /** `kubeloop_shards_held`: the virtual shards this replica holds. */
  readonly shardsHeld = this.#gauge(METRICS.shardsHeld);
  /** Shards taken, given up and lost by this replica. */
  readonly #handovers = this.#counter(METRICS.shardHandovers);
  readonly #unowned = this.#gauge(METRICS.shardUnownedSeconds);

  readonly #clientFiltered = this.#gauge(METRICS.shardClientFiltered);
  readonly #shardLabelled = this.#gauge(METRICS.shardLabelled);
  readonly #shardLabelErrors = this.#counter(METRICS.shardLabelErrors);

  /** Status history kept out of status: condition changes written by controllers. */
  readonly #runnableRunning = this.#gauge(METRICS.runnableRunning);
  readonly #budgetExceeded = this.#gauge(METRICS.cacheBudgetExceeded);
  readonly #runnableFailures = this.#counter(METRICS.runnableFailures);
  /** Hooks for the runnables' runs. */
  readonly runnables: RunnableMetrics = {
    running: (runnable, running) => this.#runnableRunning.set({ runnable }, running ? 1 : 0),
    failed: (runnable) => this.#runnableFailures.inc({ runnable }),
  };
  readonly #conditionTransitions = this.#counter(METRICS.conditionTransitions);

  constructor(clock: Clock, options: { processMetrics?: boolean } = {}) {
    this.#clock = clock;
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
    this.#queueGauges();
    this.#scraped(METRICS.watchSecondsSinceLastEvent, (gauge) => {
      for (const [kind, at] of this.#lastEvent) gauge.set({ kind }, (this.#clock.now() - at) / 1000);
    });
  }

  #counter<L extends string>(metric: MetricDefinition<"counter", L>): BatchedCounter<L> {
    return new BatchedCounter({ ...metric, registry: this.registry });
  }

  #gauge<L extends string>(metric: MetricDefinition<"gauge", L>): BatchedGauge<L> {
    return new BatchedGauge({ ...metric, registry: this.registry });
  }

  #histogram<L extends string>(
    metric: MetricDefinition<"histogram", L>,
    buckets: readonly number[],
  ): BatchedHistogram<L> {
    return new BatchedHistogram({ ...metric, buckets, registry: this.registry });
  }

  /** A gauge whose values `collect` sets when it is scraped. */
  #scraped<L extends string>(metric: MetricDefinition<"gauge", L>, collect: (gauge: Gauge<L>) => void): void {
    new Gauge({
      ...promClientConfig(metric, this.registry),
      collect() {
        collect(this);
      },
    });
  }

  #queueGauges(): void {
    const queues = this.#queues;
    this.#scraped(METRICS.unfinishedWork, (gauge) => {
      for (const [name, set] of queues) {
        const seconds = [...set].reduce((sum, q) => sum + q.unfinishedWorkSeconds(), 0);
        gauge.set({ name, controller: name }, seconds);
      }
    });
    this.#scraped(METRICS.longestRunningProcessor, (gauge) => {
      for (const [name, set] of queues) {
        const seconds = Math.max(0, ...[...set].map((q) => q.longestRunningProcessorSeconds()));
        gauge.set({ name, controller: name }, seconds);
      }
    });
  }

  /** Hooks for one controller. */
  /**
   * Hooks for one controller. A sharded manager runs one instance of a controller per held shard,
   * each with hooks of its own: their gauges (active workers, queue depth) add up.
   */
  controller(name: string): ControllerMetrics {
    const labels = { controller: name };
    const queueLabels = { name, controller: name };
    const activeWorkers = this.#part(this.#activeWorkers, labels);
    const maxConcurrent = this.#part(this.#maxConcurrent, labels);
    const depths = new Map<number, (n: number) => void>();
    const depth = (n: number, priority: number) => {
      const part =
        depths.get(priority) ?? this.#part(this.#depth, { ...queueLabels, priority: String(priority) });
      depths.set(priority, part);
      part(n);
    };
    return {
      reconciled: (result, seconds) => {
        this.#reconcileTotal.inc({ ...labels, result });
        this.#reconcileTime.observe(labels, seconds);
      },
      failed: (terminal) => (terminal ? this.#terminalErrors : this.#reconcileErrors).inc(labels),
      timedOut: () => this.#reconcileTimeouts.inc(labels),
      ownWritesWaited: (outcome) => this.#ownWritesWaits.inc({ ...labels, outcome }),
      handlingFailed: (source) => this.#handlingErrors.inc({ ...labels, source }),
      activeWorkers,
      maxConcurrent,
      triggered: (trigger) => this.#triggers.inc({ ...labels, trigger }),
      driftRepaired: (kind, manager) => this.#driftRepaired(kind, manager),
      conditionTransitioned: (kind, condition, status) =>
        this.#conditionTransitions.inc({ kind, condition, status }),
      queue: {
        depth,
        added: () => this.#adds.inc(queueLabels),
        queueDuration: (s) => this.#queueDuration.observe(queueLabels, s),
        workDuration: (s) => this.#workDuration.observe(queueLabels, s),
        retried: () => this.#retries.inc(queueLabels),
      },
    };
  }

  #driftRepaired(kind: string, manager: string): void {
    this.#driftRepairs.inc({ kind, manager });
    this.#driftRepairsDeprecated.inc({ kind, manager });
  }

  /**
   * One reporter's part of a gauge that several may share: each call sets this part, and the
   * gauge shows the sum of every part of the same labels.
   */
  #part<L extends string>(gauge: BatchedGauge<L>, labels: Record<L, string>): (n: number) => void {
    const sums = this.#gaugeTotals.get(gauge) ?? new Map<string, number>();
    this.#gaugeTotals.set(gauge, sums);
    const key = JSON.stringify(labels);
    let last = 0;
    return (n) => {
      const total = (sums.get(key) ?? 0) + n - last;
      last = n;
      sums.set(key, total);
      gauge.set(labels as LabelValues<L>, total);
    };
  }

  /**
   * `kubeloop_cache_objects{kind}`: the objects `informers()` hold when scraped, per kind — the
   * manager's shared informers and, with sharding, those of the shards it holds (what a replica
   * caches). Call once.
   */
  trackCachedObjects(informers: () => readonly { type: ResourceType; store: { size: number } }[]): void {
    this.#perKind(METRICS.cacheObjects, informers, (held, { store }) => (held ?? 0) + store.size);
  }

  /**
   * `kubeloop_cache_bytes{kind}`: the estimated heap bytes `informers()` hold when scraped, per
   * kind — the sum of each informer's running estimate (`Informer.bytes`), no walk of a store.
   * Call once.
   */
  trackCachedBytes(informers: () => readonly { type: ResourceType; bytes: number }[]): void {
    this.#perKind(METRICS.cacheBytes, informers, (held, { bytes }) => (held ?? 0) + bytes);
  }

  /** `kubeloop_cache_budget_exceeded{kind}`: 1 while the caches of `kind` hold more than its budget. */
  cacheBudgetExceeded(kind: string, exceeded: boolean): void {
    this.#budgetExceeded.set({ kind }, exceeded ? 1 : 0);
  }

  /**
   * `kubeloop_informer_synced{kind}`, when scraped: 1 while every informer of the kind in
   * `informers()` has synced and is watching, 0 while one lists for the first time or fails (its
   * store stale until something arrives again). Call once.
   */
  trackInformerSync(
    informers: () => readonly { type: ResourceType; health(): { state: InformerState } }[],
  ): void {
    this.#perKind(METRICS.informerSynced, informers, (synced, informer) =>
      Math.min(synced ?? 1, informer.health().state === "synced" ? 1 : 0),
    );
  }

  /** A gauge `metric{kind}` computed when scraped: each informer's value folded into its kind's. */
  #perKind<I extends { type: ResourceType }>(
    metric: MetricDefinition<"gauge", "kind">,
    informers: () => readonly I[],
    fold: (value: number | undefined, informer: I) => number,
  ): void {
    this.#scraped(metric, (gauge) => {
      gauge.reset();
      const values = new Map<string, number>();
      for (const informer of informers())
        values.set(informer.type.kind, fold(values.get(informer.type.kind), informer));
      for (const [kind, value] of values) gauge.set({ kind }, value);
    });
  }

  /** Makes a controller's queue visible to the unfinished-work gauges, until the function it returns is called. */
  trackQueue(name: string, queue: WorkQueue): () => void {
    const queues = this.#queues.get(name) ?? new Set<WorkQueue>();
    this.#queues.set(name, queues);
    queues.add(queue);
    return () => queues.delete(queue);
  }

  /** Whether the shards of this replica filter `kind` on the client (the apiserver does not shard it). */
  clientFiltered(kind: string, filtered: boolean): void {
    this.#clientFiltered.set({ kind }, filtered ? 1 : 0);
  }

  /** Whether the shards of this replica place `kind` by the shard label (the apiserver does not shard it). */
  shardLabelled(kind: string, labelled: boolean): void {
    this.#shardLabelled.set({ kind }, labelled ? 1 : 0);
  }

  /** Counts a shard label patch of a `kind` object that failed. */
  shardLabelFailed(kind: string): void {
    this.#shardLabelErrors.inc({ kind });
  }

  /** Counts a shard this replica took, gave up or lost; for one it took, how long it had been without an owner. */
  shardHandover(
    event: "acquired" | "released" | "lost",
    shard?: { index: number; unownedMs?: number },
  ): void {
    this.#handovers.inc({ event });
    if (shard?.unownedMs !== undefined)
      this.#unowned.set({ shard: String(shard.index) }, shard.unownedMs / 1000);
  }

  /** Hooks for the client. */
  client(host: string): ClientMetrics {
    return {
      request: ({ code, method, verb, seconds }) => {
        this.#requests.inc({ code, method, host });
        this.#requestDuration.observe({ verb: verb.toUpperCase(), host }, seconds);
      },
      retry: ({ code, method }) => this.#requestRetries.inc({ code, verb: method, host }),
    };
  }

  /** Hooks for the informer of one kind: its watch, its callbacks, its restarts and its relists. */
  informer(type: ResourceType): InformerMetrics {
    const kind = type.kind;
    return {
      callbackError: (callback) => this.#callbackErrors.inc({ kind, callback }),
      restart: () => this.#informerRestarts.inc({ kind }),
      diverged: (change) => this.#divergence.inc({ kind, change }),
      event: (t) => {
        this.#watchEvents.inc({ kind, type: t });
        this.#lastEvent.set(kind, this.#clock.now());
      },
      relist: (reason) => this.#relists.inc({ kind, reason }),
      reconnect: (reason) => this.#reconnects.inc({ kind, reason }),
      outsideShard: () => this.#outsideShard.inc({ kind }),
      bytes: (count) => this.#watchBytes.inc({ kind }, count),
    };
  }
}
