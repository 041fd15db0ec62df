/**
 * The manager's Prometheus metrics, named as controller-runtime and client-go name them so
 * existing dashboards and alerts work, plus watch health. One registry per manager; the hooks
 * the client, watches, queues and controllers call are bound here.
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
import type { WorkQueue } from "../queue/index.ts";
import { BatchedCounter, BatchedGauge, BatchedHistogram } from "./internal/batched.ts";
import type { RunnableMetrics } from "./runnable.ts";

const reconcileBuckets = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5,
  1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];
const queueBuckets = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.1, 1, 10, 100, 1000];

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

  readonly #reconcileTotal = this.#counter(
    "controller_runtime_reconcile_total",
    "Total number of reconciliations per controller",
    ["controller", "result"],
  );
  readonly #reconcileErrors = this.#counter(
    "controller_runtime_reconcile_errors_total",
    "Total number of reconciliation errors per controller",
    ["controller"],
  );
  readonly #terminalErrors = this.#counter(
    "controller_runtime_terminal_reconcile_errors_total",
    "Total number of terminal reconciliation errors per controller",
    ["controller"],
  );
  readonly #reconcileTimeouts = this.#counter(
    "controller_runtime_reconcile_timeouts_total",
    "Total number of reconciliation timeouts per controller",
    ["controller"],
  );
  readonly #reconcileTime = new BatchedHistogram({
    name: "controller_runtime_reconcile_time_seconds",
    help: "Length of time per reconciliation per controller",
    labelNames: ["controller"],
    buckets: reconcileBuckets,
    registry: this.registry,
  });
  readonly #maxConcurrent = this.#gauge(
    "controller_runtime_max_concurrent_reconciles",
    "Maximum number of concurrent reconciles per controller",
    ["controller"],
  );
  readonly #activeWorkers = this.#gauge(
    "controller_runtime_active_workers",
    "Number of currently used workers per controller",
    ["controller"],
  );
  readonly #handlingErrors = this.#counter(
    "kubeloop_reconcile_handling_errors_total",
    "Throws outside the reconcile that a worker survived (errorPolicy, rate limiter, logger, outcome handling) or that killed a worker, per controller and source",
    ["controller", "source"],
  );
  readonly #triggers = this.#counter(
    "kubeloop_reconcile_triggers_total",
    "Why keys were queued, per controller",
    ["controller", "trigger"],
  );
  readonly #depth = this.#gauge("workqueue_depth", "Current depth of workqueue by workqueue and priority", [
    "name",
    "controller",
    "priority",
  ]);
  readonly #adds = this.#counter("workqueue_adds_total", "Total number of adds handled by workqueue", [
    "name",
    "controller",
  ]);
  readonly #queueDuration = new BatchedHistogram({
    name: "workqueue_queue_duration_seconds",
    help: "How long in seconds an item stays in workqueue before being requested",
    labelNames: ["name", "controller"],
    buckets: queueBuckets,
    registry: this.registry,
  });
  readonly #workDuration = new BatchedHistogram({
    name: "workqueue_work_duration_seconds",
    help: "How long in seconds processing an item from workqueue takes",
    labelNames: ["name", "controller"],
    buckets: queueBuckets,
    registry: this.registry,
  });
  readonly #retries = this.#counter(
    "workqueue_retries_total",
    "Total number of retries handled by workqueue",
    ["name", "controller"],
  );
  readonly #requests = this.#counter(
    "rest_client_requests_total",
    "Number of HTTP requests, partitioned by status code, method, and host",
    ["code", "method", "host"],
  );
  readonly #requestRetries = this.#counter(
    "rest_client_request_retries_total",
    "Number of request retries, partitioned by status code, verb, and host",
    ["code", "verb", "host"],
  );
  readonly #requestDuration = new BatchedHistogram({
    name: "rest_client_request_duration_seconds",
    help: "Request latency in seconds, broken down by verb and host",
    labelNames: ["verb", "host"],
    buckets: [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60],
    registry: this.registry,
  });
  readonly #watchEvents = this.#counter(
    "kubeloop_watch_events_total",
    "Watch events received, per kind and event type",
    ["kind", "type"],
  );
  readonly #watchBytes = this.#counter(
    "kubeloop_watch_bytes_total",
    "Bytes of watch responses received, per kind",
    ["kind"],
  );
  readonly #relists = this.#counter(
    "kubeloop_watch_relists_total",
    "Full lists made by watches, per kind and reason",
    ["kind", "reason"],
  );
  readonly #reconnects = this.#counter(
    "kubeloop_watch_reconnects_total",
    "Watch reconnects from the last resourceVersion, per kind and reason",
    ["kind", "reason"],
  );
  readonly #outsideShard = this.#counter(
    "kubeloop_watch_outside_shard_total",
    "Objects a sharded watch or relist received from outside its shard and dropped (the apiserver ignored the shard selector), per kind",
    ["kind"],
  );
  readonly #callbackErrors = this.#counter(
    "kubeloop_informer_callback_errors_total",
    "User code an informer runs (indexer, transform, handler) that threw, per kind and callback; the informer went on",
    ["kind", "callback"],
  );
  readonly #informerRestarts = this.#counter(
    "kubeloop_informer_restarts_total",
    "Informer loops that died unexpectedly and were restarted, per kind",
    ["kind"],
  );
  readonly #divergence = this.#counter(
    "kubeloop_cache_divergence_total",
    "Objects a periodic relist found the cache wrong about (events the watch missed) and repaired, per kind and change",
    ["kind", "change"],
  );
  /** `leader_election_master_status{name}`: 1 while this process leads. */
  readonly leader = this.#gauge(
    "leader_election_master_status",
    "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master",
    ["name"],
  );
  /** Outputs repaired after someone else changed or deleted them. */
  readonly #driftRepairs = this.#counter(
    "kubeloop_drift_repairs_total",
    "Owned objects repaired after another actor changed or deleted them, per kind and the field manager that changed them",
    ["kind", "manager"],
  );
  /** The old, unprefixed name of `kubeloop_drift_repairs_total`, counted with it until the next release removes it. */
  readonly #driftRepairsDeprecated = this.#counter(
    "drift_repairs_total",
    "Deprecated: use kubeloop_drift_repairs_total (same labels and values); this name is removed in the next release",
    ["kind", "manager"],
  );

  /** Lease calls of leader election or sharding that failed, each retried next retry period. */
  readonly leaseErrors = this.#counter(
    "kubeloop_lease_errors_total",
    "Lease calls of leader election or sharding that failed (each retried every retry period), per phase (acquire, renew, release, list) and code (the HTTP status, timeout, unreachable or other)",
    ["phase", "code"],
  );
  /** `kubeloop_shards_held`: the virtual shards this replica holds. */
  readonly shardsHeld = this.#gauge(
    "kubeloop_shards_held",
    "Virtual shards this replica holds (sharded manager)",
    [],
  );
  /** Shards taken, given up and lost by this replica. */
  readonly #handovers = this.#counter(
    "kubeloop_shard_handovers_total",
    "Virtual shards this replica took (acquired), gave up after draining (released) or lost (lost: its Lease could not be renewed)",
    ["event"],
  );
  readonly #unowned = this.#gauge(
    "kubeloop_shard_unowned_seconds",
    "How long a shard went without a working owner before this replica took it: from its previous holder's last renewal (or release)",
    ["shard"],
  );

  readonly #clientFiltered = this.#gauge(
    "kubeloop_shard_client_filtered",
    "1 for a kind the apiserver does not shard (shard selectors ignored): the replica watches it whole and its shards filter it",
    ["kind"],
  );

  /** Status history kept out of status: condition changes written by controllers. */
  readonly #runnableRunning = this.#gauge(
    "kubeloop_runnable_running",
    "1 while a runnable's work runs on this replica, per runnable",
    ["runnable"],
  );
  readonly #runnableFailures = this.#counter(
    "kubeloop_runnable_failures_total",
    "Runs of a runnable that threw (each started again after a backoff), per runnable",
    ["runnable"],
  );
  /** Hooks for the runnables' runs. */
  readonly runnables: RunnableMetrics = {
    running: (runnable, running) => this.#runnableRunning.set({ runnable }, running ? 1 : 0),
    failed: (runnable) => this.#runnableFailures.inc({ runnable }),
  };
  readonly #conditionTransitions = this.#counter(
    "kubeloop_condition_transitions_total",
    "Condition status changes written by controllers, per kind, condition and new status",
    ["kind", "condition", "status"],
  );

  constructor(clock: Clock, options: { processMetrics?: boolean } = {}) {
    this.#clock = clock;
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
    this.#queueGauges();
    new Gauge({
      name: "kubeloop_watch_seconds_since_last_event",
      help: "Seconds since the watch of a kind last received anything (event or bookmark)",
      labelNames: ["kind"],
      registers: [this.registry],
      collect: () => this.#collectLastEvents(),
    });
  }

  #counter<L extends string>(name: string, help: string, labelNames: L[]): BatchedCounter<L> {
    return new BatchedCounter({ name, help, labelNames, registry: this.registry });
  }

  #gauge<L extends string>(name: string, help: string, labelNames: L[]): BatchedGauge<L> {
    return new BatchedGauge({ name, help, labelNames, registry: this.registry });
  }

  #queueGauges(): void {
    const queues = this.#queues;
    new Gauge({
      name: "workqueue_unfinished_work_seconds",
      help: "How many seconds of work has been done that is in progress and hasn't been observed by work_duration",
      labelNames: ["name", "controller"],
      registers: [this.registry],
      collect() {
        for (const [name, set] of queues) {
          const seconds = [...set].reduce((sum, q) => sum + q.unfinishedWorkSeconds(), 0);
          this.set({ name, controller: name }, seconds);
        }
      },
    });
    new Gauge({
      name: "workqueue_longest_running_processor_seconds",
      help: "How many seconds has the longest running processor for workqueue been running",
      labelNames: ["name", "controller"],
      registers: [this.registry],
      collect() {
        for (const [name, set] of queues) {
          const seconds = Math.max(0, ...[...set].map((q) => q.longestRunningProcessorSeconds()));
          this.set({ name, controller: name }, seconds);
        }
      },
    });
  }

  #collectLastEvents(): void {
    const gauge = this.registry.getSingleMetric("kubeloop_watch_seconds_since_last_event") as Gauge;
    for (const [kind, at] of this.#lastEvent) gauge.set({ kind }, (this.#clock.now() - at) / 1000);
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
    this.#perKind(
      "kubeloop_cache_objects",
      "Objects held in the informer caches, per kind (with sharding: of the shards this replica holds, and the kinds it caches whole)",
      informers,
      (held, { store }) => (held ?? 0) + store.size,
    );
  }

  /**
   * `kubeloop_informer_synced{kind}`, when scraped: 1 while every informer of the kind in
   * `informers()` has synced and is watching, 0 while one lists for the first time or fails (its
   * store stale until something arrives again). Call once.
   */
  trackInformerSync(
    informers: () => readonly { type: ResourceType; health(): { state: InformerState } }[],
  ): void {
    this.#perKind(
      "kubeloop_informer_synced",
      "1 while every informer of the kind has synced and is watching, 0 while one lists for the first time or fails (its cache stale), per kind",
      informers,
      (synced, informer) => Math.min(synced ?? 1, informer.health().state === "synced" ? 1 : 0),
    );
  }

  /** A gauge `name{kind}` computed when scraped: each informer's value folded into its kind's. */
  #perKind<I extends { type: ResourceType }>(
    name: string,
    help: string,
    informers: () => readonly I[],
    fold: (value: number | undefined, informer: I) => number,
  ): void {
    new Gauge({
      name,
      help,
      labelNames: ["kind"],
      registers: [this.registry],
      collect() {
        this.reset();
        const values = new Map<string, number>();
        for (const informer of informers())
          values.set(informer.type.kind, fold(values.get(informer.type.kind), informer));
        for (const [kind, value] of values) this.set({ kind }, value);
      },
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
