/**
 * Every metric a kubeloop operator exposes, declared once: name, type, help and label names.
 * controller-runtime's and client-go's names where they have one (so their dashboards and alerts
 * work), `kubeloop_` for what kubeloop adds. The registries register from these entries; the live
 * page, the generated dashboard and alert rules and the conformance kit read them by key, so a
 * renamed metric or label is a type error rather than a query that finds nothing.
 */

/** A Prometheus metric type, as `# TYPE` lines write it. */
export type MetricType = "counter" | "gauge" | "histogram";

/** One metric: what `/metrics` exposes, and what a query may name on it. */
export interface MetricDefinition<T extends MetricType = MetricType, L extends string = string> {
  readonly name: string;
  readonly type: T;
  readonly help: string;
  /** The labels the operator puts on its series (a histogram's `le` aside). */
  readonly labelNames: readonly L[];
}

/** The label names of metric `M`. */
export type LabelOf<M extends MetricDefinition> = M["labelNames"][number];

/** Values of some of metric `M`'s labels: the series to read. */
export type MetricLabels<M extends MetricDefinition> = { readonly [L in LabelOf<M>]?: string };

/** controller-runtime's reconcile and webhook metrics. */
const controllerRuntime = {
  reconcileTotal: {
    name: "controller_runtime_reconcile_total",
    type: "counter",
    help: "Total number of reconciliations per controller",
    labelNames: ["controller", "result"],
  },
  reconcileErrors: {
    name: "controller_runtime_reconcile_errors_total",
    type: "counter",
    help: "Total number of reconciliation errors per controller",
    labelNames: ["controller"],
  },
  terminalReconcileErrors: {
    name: "controller_runtime_terminal_reconcile_errors_total",
    type: "counter",
    help: "Total number of terminal reconciliation errors per controller",
    labelNames: ["controller"],
  },
  reconcileTimeouts: {
    name: "controller_runtime_reconcile_timeouts_total",
    type: "counter",
    help: "Total number of reconciliation timeouts per controller",
    labelNames: ["controller"],
  },
  reconcileTime: {
    name: "controller_runtime_reconcile_time_seconds",
    type: "histogram",
    help: "Length of time per reconciliation per controller",
    labelNames: ["controller"],
  },
  maxConcurrentReconciles: {
    name: "controller_runtime_max_concurrent_reconciles",
    type: "gauge",
    help: "Maximum number of concurrent reconciles per controller",
    labelNames: ["controller"],
  },
  activeWorkers: {
    name: "controller_runtime_active_workers",
    type: "gauge",
    help: "Number of currently used workers per controller",
    labelNames: ["controller"],
  },
  webhookRequests: {
    name: "controller_runtime_webhook_requests_total",
    type: "counter",
    help: "Total number of admission requests by HTTP status code.",
    labelNames: ["webhook", "code"],
  },
  webhookLatency: {
    name: "controller_runtime_webhook_latency_seconds",
    type: "histogram",
    help: "Histogram of the latency of processing admission requests",
    labelNames: ["webhook"],
  },
  webhookRequestsInFlight: {
    name: "controller_runtime_webhook_requests_in_flight",
    type: "gauge",
    help: "Current number of admission requests being served.",
    labelNames: ["webhook"],
  },
} as const;

/** client-go's work queue, REST client and leader election metrics. */
const clientGo = {
  queueDepth: {
    name: "workqueue_depth",
    type: "gauge",
    help: "Current depth of workqueue by workqueue and priority",
    labelNames: ["name", "controller", "priority"],
  },
  queueAdds: {
    name: "workqueue_adds_total",
    type: "counter",
    help: "Total number of adds handled by workqueue",
    labelNames: ["name", "controller"],
  },
  queueDuration: {
    name: "workqueue_queue_duration_seconds",
    type: "histogram",
    help: "How long in seconds an item stays in workqueue before being requested",
    labelNames: ["name", "controller"],
  },
  workDuration: {
    name: "workqueue_work_duration_seconds",
    type: "histogram",
    help: "How long in seconds processing an item from workqueue takes",
    labelNames: ["name", "controller"],
  },
  queueRetries: {
    name: "workqueue_retries_total",
    type: "counter",
    help: "Total number of retries handled by workqueue",
    labelNames: ["name", "controller"],
  },
  unfinishedWork: {
    name: "workqueue_unfinished_work_seconds",
    type: "gauge",
    help: "How many seconds of work has been done that is in progress and hasn't been observed by work_duration",
    labelNames: ["name", "controller"],
  },
  longestRunningProcessor: {
    name: "workqueue_longest_running_processor_seconds",
    type: "gauge",
    help: "How many seconds has the longest running processor for workqueue been running",
    labelNames: ["name", "controller"],
  },
  restClientRequests: {
    name: "rest_client_requests_total",
    type: "counter",
    help: "Number of HTTP requests, partitioned by status code, method, and host",
    labelNames: ["code", "method", "host"],
  },
  restClientRequestRetries: {
    name: "rest_client_request_retries_total",
    type: "counter",
    help: "Number of request retries, partitioned by status code, verb, and host",
    labelNames: ["code", "verb", "host"],
  },
  restClientRequestDuration: {
    name: "rest_client_request_duration_seconds",
    type: "histogram",
    help: "Request latency in seconds, broken down by verb and host",
    labelNames: ["verb", "host"],
  },
  leaderElectionMasterStatus: {
    name: "leader_election_master_status",
    type: "gauge",
    help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master",
    labelNames: ["name"],
  },
} as const;

/** What kubeloop adds: reconcile triggers, watch and cache health, drift, shards, runnables, webhooks. */
const kubeloop = {
  reconcileHandlingErrors: {
    name: "kubeloop_reconcile_handling_errors_total",
    type: "counter",
    help: "Throws outside the reconcile that a worker survived (errorPolicy, rate limiter, logger, outcome handling) or that killed a worker, per controller and source",
    labelNames: ["controller", "source"],
  },
  readOwnWritesWaits: {
    name: "kubeloop_read_own_writes_waits_total",
    type: "counter",
    help: "Reconciles that waited for the cache to show their key's last writes (readYourOwnWrites), per controller and outcome (observed, timeout: reconciled anyway after the bound)",
    labelNames: ["controller", "outcome"],
  },
  reconcileTriggers: {
    name: "kubeloop_reconcile_triggers_total",
    type: "counter",
    help: "Why keys were queued, per controller",
    labelNames: ["controller", "trigger"],
  },
  watchEvents: {
    name: "kubeloop_watch_events_total",
    type: "counter",
    help: "Watch events received, per kind and event type",
    labelNames: ["kind", "type"],
  },
  watchBytes: {
    name: "kubeloop_watch_bytes_total",
    type: "counter",
    help: "Bytes of watch responses received, per kind",
    labelNames: ["kind"],
  },
  watchRelists: {
    name: "kubeloop_watch_relists_total",
    type: "counter",
    help: "Full lists made by watches, per kind and reason",
    labelNames: ["kind", "reason"],
  },
  watchReconnects: {
    name: "kubeloop_watch_reconnects_total",
    type: "counter",
    help: "Watch reconnects from the last resourceVersion, per kind and reason",
    labelNames: ["kind", "reason"],
  },
  watchOutsideShard: {
    name: "kubeloop_watch_outside_shard_total",
    type: "counter",
    help: "Objects a sharded watch or relist received from outside its shard and dropped (the apiserver ignored the shard selector), per kind",
    labelNames: ["kind"],
  },
  watchSecondsSinceLastEvent: {
    name: "kubeloop_watch_seconds_since_last_event",
    type: "gauge",
    help: "Seconds since the watch of a kind last received anything (event or bookmark)",
    labelNames: ["kind"],
  },
  informerCallbackErrors: {
    name: "kubeloop_informer_callback_errors_total",
    type: "counter",
    help: "User code an informer runs (indexer, transform, handler) that threw, per kind and callback; the informer went on",
    labelNames: ["kind", "callback"],
  },
  informerRestarts: {
    name: "kubeloop_informer_restarts_total",
    type: "counter",
    help: "Informer loops that died unexpectedly and were restarted, per kind",
    labelNames: ["kind"],
  },
  informerSynced: {
    name: "kubeloop_informer_synced",
    type: "gauge",
    help: "1 while every informer of the kind has synced and is watching, 0 while one lists for the first time or fails (its cache stale), per kind",
    labelNames: ["kind"],
  },
  cacheObjects: {
    name: "kubeloop_cache_objects",
    type: "gauge",
    help: "Objects held in the informer caches, per kind (with sharding: of the shards this replica holds, and the kinds it caches whole)",
    labelNames: ["kind"],
  },
  cacheBytes: {
    name: "kubeloop_cache_bytes",
    type: "gauge",
    help: "Estimated heap bytes held in the informer caches, per kind (each object's size from its shape, kept as objects are written; within 20% of the measured heap)",
    labelNames: ["kind"],
  },
  cacheBudgetExceeded: {
    name: "kubeloop_cache_budget_exceeded",
    type: "gauge",
    help: "1 while the informer caches of a kind hold more than its budget (the manager's cache.budgets), until back under 90% of it; 0 otherwise, per budgeted kind",
    labelNames: ["kind"],
  },
  cacheDivergence: {
    name: "kubeloop_cache_divergence_total",
    type: "counter",
    help: "Objects a periodic relist found the cache wrong about (events the watch missed) and repaired, per kind and change",
    labelNames: ["kind", "change"],
  },
  driftRepairs: {
    name: "kubeloop_drift_repairs_total",
    type: "counter",
    help: "Owned objects repaired after another actor changed or deleted them, per kind and the field manager that changed them",
    labelNames: ["kind", "manager"],
  },
  /** The old, unprefixed name of `kubeloop_drift_repairs_total`, counted with it until the next release removes it. */
  driftRepairsDeprecated: {
    name: "drift_repairs_total",
    type: "counter",
    help: "Deprecated: use kubeloop_drift_repairs_total (same labels and values); this name is removed in the next release",
    labelNames: ["kind", "manager"],
  },
  conditionTransitions: {
    name: "kubeloop_condition_transitions_total",
    type: "counter",
    help: "Condition status changes written by controllers, per kind, condition and new status",
    labelNames: ["kind", "condition", "status"],
  },
  leaseErrors: {
    name: "kubeloop_lease_errors_total",
    type: "counter",
    help: "Lease calls of leader election or sharding that failed (each retried every retry period), per phase (acquire, renew, release, list) and code (the HTTP status, timeout, unreachable or other)",
    labelNames: ["phase", "code"],
  },
  shardsHeld: {
    name: "kubeloop_shards_held",
    type: "gauge",
    help: "Virtual shards this replica holds (sharded manager)",
    labelNames: [],
  },
  shardHandovers: {
    name: "kubeloop_shard_handovers_total",
    type: "counter",
    help: "Virtual shards this replica took (acquired), gave up after draining (released) or lost (lost: its Lease could not be renewed)",
    labelNames: ["event"],
  },
  shardUnownedSeconds: {
    name: "kubeloop_shard_unowned_seconds",
    type: "gauge",
    help: "How long a shard went without a working owner before this replica took it: from its previous holder's last renewal (or release)",
    labelNames: ["shard"],
  },
  shardClientFiltered: {
    name: "kubeloop_shard_client_filtered",
    type: "gauge",
    help: "1 for a kind the apiserver does not shard (shard selectors ignored): the replica watches it whole and its shards filter it",
    labelNames: ["kind"],
  },
  shardLabelled: {
    name: "kubeloop_shard_labelled",
    type: "gauge",
    help: "1 for a kind the apiserver does not shard that the replica places by the shard label (kubeloop.dev/shard): it labels its shards' objects and watches them by that label",
    labelNames: ["kind"],
  },
  shardLabelErrors: {
    name: "kubeloop_shard_label_errors_total",
    type: "counter",
    help: "Shard label patches that failed (the object stays unlabelled, seen through the watch of unlabelled objects, and is labelled at its next change)",
    labelNames: ["kind"],
  },
  runnableRunning: {
    name: "kubeloop_runnable_running",
    type: "gauge",
    help: "1 while a runnable's work runs on this replica, per runnable",
    labelNames: ["runnable"],
  },
  runnableFailures: {
    name: "kubeloop_runnable_failures_total",
    type: "counter",
    help: "Runs of a runnable that threw (each started again after a backoff), per runnable",
    labelNames: ["runnable"],
  },
  webhookHandlerFailures: {
    name: "kubeloop_webhook_handler_failures_total",
    type: "counter",
    help: "Webhook handlers that threw or timed out (the request was refused with code 500), per webhook and reason",
    labelNames: ["webhook", "reason"],
  },
  webhookConfigurationFailures: {
    name: "kubeloop_webhook_configuration_failures_total",
    type: "counter",
    help: "Failed applications of the webhook configurations and CRD conversion stanzas with the serving CA (retried with backoff)",
    labelNames: [],
  },
} as const;

/**
 * The metrics kubeloop registers: a manager's (the webhook server's among them when it serves
 * webhooks), by a key that says what each counts.
 */
export const METRICS = { ...controllerRuntime, ...clientGo, ...kubeloop } as const satisfies Record<
  string,
  MetricDefinition
>;

/** The label a fleet (`kubeloop/multicluster`) adds to the series of each engaged cluster's manager. */
export const CLUSTER_LABEL = "cluster";

/**
 * prom-client's default process and Node.js metrics that kubeloop's dashboard reads. A manager
 * with a metrics endpoint registers them with `collectDefaultMetrics` (they are not declared here,
 * and it registers more).
 */
export const PROCESS_METRICS = {
  cpuSeconds: {
    name: "process_cpu_seconds_total",
    type: "counter",
    help: "Total user and system CPU time spent in seconds.",
    labelNames: [],
  },
  residentMemory: {
    name: "process_resident_memory_bytes",
    type: "gauge",
    help: "Resident memory size in bytes.",
    labelNames: [],
  },
  heapUsed: {
    name: "nodejs_heap_size_used_bytes",
    type: "gauge",
    help: "Process heap size used from Node.js in bytes.",
    labelNames: [],
  },
  eventLoopLagP99: {
    name: "nodejs_eventloop_lag_p99_seconds",
    type: "gauge",
    help: "The 99th percentile of the recorded event loop delays.",
    labelNames: [],
  },
} as const satisfies Record<string, MetricDefinition>;

/**
 * What prom-client's `Counter`, `Gauge` and `Histogram` take to register `metric` on `registry`:
 * its name, help and label names (add `collect`, `buckets` as the metric needs).
 */
export function promClientConfig<L extends string, R>(metric: MetricDefinition<MetricType, L>, registry: R) {
  const { name, help, labelNames } = metric;
  return { name, help, labelNames, registers: [registry] };
}
