/**
 * What the operator's Grafana dashboard shows, row by row: controller-runtime's reconcile and work
 * queue metrics as kubebuilder's dashboards show them, and what kubeloop adds (why keys were
 * queued, informer sync and watch health, drift repairs, condition transitions, shards), each
 * panel's queries over the dashboard's `$job` and `$namespace` (and `$controller`) variables.
 * `dashboard.ts` lays them out as Grafana JSON.
 */
import type { MonitoringOptions } from "./monitoring.ts";
import { by, increase, quantile, rate, select } from "./queries.ts";

/** A panel: a time series, or a stat (the latest value, in the overview). */
export interface PanelSpec {
  readonly title: string;
  readonly description: string;
  /** Grafana's unit id: `ops`, `s`, `percentunit`, `bytes`, `short`. */
  readonly unit: string;
  /** Each query with its legend. */
  readonly targets: readonly (readonly [expr: string, legend: string])[];
  readonly stat?: boolean;
}

/** A titled row of panels. */
export interface RowSpec {
  readonly title: string;
  readonly panels: readonly PanelSpec[];
}

const window = "$__rate_interval";
/** The series of the dashboard's job and namespace. */
const s = 'job="$job", namespace="$namespace"';
/** ... of its chosen controllers. */
const c = `${s}, controller=~"$controller"`;

const timeseries = (title: string, description: string, unit: string, ...targets: Target[]): PanelSpec => ({
  title,
  description,
  unit,
  targets,
});

const stat = (title: string, description: string, unit: string, expr: string, label = ""): PanelSpec => ({
  ...timeseries(title, description, unit, [expr, label]),
  stat: true,
});

type Target = readonly [expr: string, legend: string];

/** A legend naming each of `labels`' values, then `suffix`. */
const legend = (labels: readonly string[], suffix: string) =>
  [...labels.map((label) => `{{${label}}}`), suffix].filter(Boolean).join(" ");

/** Counter `metric`'s per-second rate summed by `labels`. */
const rated = (metric: string, labels: string[], suffix = "", selector = c): Target => [
  by(labels, rate(metric, selector, window)),
  legend(labels, suffix),
];

/** Counter `metric`'s increase over the panel's step, summed by `labels`. */
const increased = (metric: string, labels: string[], suffix = "", selector = s): Target => [
  by(labels, increase(metric, selector, window)),
  legend(labels, suffix),
];

/** Gauge `metric` by `labels`, folded with `op`. */
const gauge = (metric: string, labels: string[], suffix = "", op = "sum", selector = c): Target => [
  by(labels, select(metric, selector), op),
  legend(labels, suffix),
];

/** p50, p90 and p99 of histogram `family` per `labels`, each legend led by its quantile. */
function quantiles(family: string, labels: readonly string[], selector: string, legend: string) {
  return [0.5, 0.9, 0.99].map(
    (q) => [quantile(q, family, labels, selector, window), `p${q * 100} ${legend}`] as const,
  );
}

function overview(options: MonitoringOptions): RowSpec {
  const leadership = options.sharded
    ? stat(
        "Shards held",
        "Virtual shards held, over every replica",
        "short",
        `sum(kubeloop_shards_held{${s}})`,
      )
    : stat(
        "Leader",
        "The pod holding the operator's Lease",
        "short",
        `max by (pod) (leader_election_master_status{${s}}) == 1`,
        "{{pod}}",
      );
  return {
    title: "Overview",
    panels: [
      stat(
        "Reconciles",
        "Reconciles per second",
        "ops",
        `sum(${rate("controller_runtime_reconcile_total", s, window)})`,
      ),
      stat(
        "Reconcile errors",
        "The share of reconciles that failed (and are retried)",
        "percentunit",
        `sum(${rate("controller_runtime_reconcile_errors_total", s, window)}) / sum(${rate("controller_runtime_reconcile_total", s, window)})`,
      ),
      stat("Queued", "Keys waiting in the work queues", "short", `sum(workqueue_depth{${s}})`),
      stat(
        "Informers not synced",
        "Kinds whose cache has not synced or whose list or watch fails (see /readyz?verbose)",
        "short",
        `sum(1 - kubeloop_informer_synced{${s}})`,
      ),
      leadership,
      stat(
        "Drift repairs (1h)",
        "Owned objects put back after someone else changed or deleted them, in the last hour",
        "short",
        `sum(${increase("kubeloop_drift_repairs_total", s, "1h")})`,
      ),
    ],
  };
}

const reconciliation: RowSpec = {
  title: "Reconciliation",
  panels: [
    timeseries(
      "Reconciles by result",
      "Reconciles per second, per controller and result",
      "ops",
      rated("controller_runtime_reconcile_total", ["controller", "result"]),
    ),
    timeseries(
      "Reconcile errors",
      "Failed reconciles per second: retried with backoff, or terminal (not retried until the object changes); timed out: those that ran past reconciliationTimeoutMs, among the retried",
      "ops",
      rated("controller_runtime_reconcile_errors_total", ["controller"], "retried"),
      rated("controller_runtime_terminal_reconcile_errors_total", ["controller"], "terminal"),
      rated("controller_runtime_reconcile_timeouts_total", ["controller"], "timed out"),
    ),
    timeseries(
      "Reconcile time",
      "How long a reconcile takes",
      "s",
      ...quantiles("controller_runtime_reconcile_time_seconds", ["controller"], c, "{{controller}}"),
    ),
    timeseries(
      "Workers",
      "Reconciles running at once, against the most allowed (maxConcurrentReconciles)",
      "short",
      gauge("controller_runtime_active_workers", ["controller"], "active"),
      gauge("controller_runtime_max_concurrent_reconciles", ["controller"], "max"),
    ),
    timeseries(
      "Reconcile triggers",
      "Why keys were queued: the watch event or resync that asked for a reconcile",
      "ops",
      rated("kubeloop_reconcile_triggers_total", ["controller", "trigger"]),
    ),
  ],
};

const workQueue: RowSpec = {
  title: "Work queue",
  panels: [
    timeseries(
      "Queue depth",
      "Keys waiting, per controller and priority",
      "short",
      gauge("workqueue_depth", ["controller", "priority"]),
    ),
    timeseries(
      "Adds and retries",
      "Keys added per second, and keys queued again after a failure",
      "ops",
      rated("workqueue_adds_total", ["controller"], "adds"),
      rated("workqueue_retries_total", ["controller"], "retries"),
    ),
    timeseries(
      "Time in queue",
      "How long a key waits before a worker takes it",
      "s",
      ...quantiles("workqueue_queue_duration_seconds", ["controller"], c, "{{controller}}"),
    ),
    timeseries(
      "Work duration",
      "How long a worker holds a key",
      "s",
      ...quantiles("workqueue_work_duration_seconds", ["controller"], c, "{{controller}}"),
    ),
    timeseries(
      "Work in progress",
      "Seconds of work in progress, and the longest-running reconcile: a steady climb means stuck workers",
      "s",
      gauge("workqueue_unfinished_work_seconds", ["controller"], "unfinished"),
      gauge("workqueue_longest_running_processor_seconds", ["controller"], "longest", "max"),
    ),
  ],
};

const informers: RowSpec = {
  title: "Informers and watches",
  panels: [
    timeseries(
      "Synced",
      "1 while the kind's cache is synced and watching, 0 while it lists or fails",
      "short",
      gauge("kubeloop_informer_synced", ["kind"], "", "min", s),
    ),
    timeseries(
      "Cached objects",
      "Objects in the informer caches, per kind",
      "short",
      gauge("kubeloop_cache_objects", ["kind"], "", "sum", s),
    ),
    timeseries(
      "Watch events",
      "Watch events received per second, per kind and type",
      "ops",
      rated("kubeloop_watch_events_total", ["kind", "type"], "", s),
    ),
    timeseries(
      "Since the last watch event",
      "Seconds since a kind's watch last received anything (event or bookmark)",
      "s",
      gauge("kubeloop_watch_seconds_since_last_event", ["kind"], "", "max", s),
    ),
    timeseries(
      "Relists and reconnects",
      "Full lists and watch reconnects, per kind and reason",
      "short",
      increased("kubeloop_watch_relists_total", ["kind", "reason"], "relist"),
      increased("kubeloop_watch_reconnects_total", ["kind", "reason"], "reconnect"),
    ),
    timeseries(
      "Cache repairs and restarts",
      "Objects a periodic relist found the cache wrong about (events the watch missed), and informers restarted after dying",
      "short",
      increased("kubeloop_cache_divergence_total", ["kind", "change"], "repaired"),
      increased("kubeloop_informer_restarts_total", ["kind"], "restarted"),
    ),
  ],
};

const ownership: RowSpec = {
  title: "Ownership and status",
  panels: [
    timeseries(
      "Drift repairs",
      "Owned objects put back after another writer changed or deleted them, per kind and that writer's field manager",
      "short",
      increased("kubeloop_drift_repairs_total", ["kind", "manager"]),
    ),
    timeseries(
      "Condition transitions",
      "Condition status changes written, per kind, condition and status",
      "short",
      increased("kubeloop_condition_transitions_total", ["kind", "condition", "status"]),
    ),
  ],
};

function leadership(options: MonitoringOptions): RowSpec {
  if (!options.sharded)
    return {
      title: "Leader election",
      panels: [
        timeseries(
          "Leader",
          "1 on the pod holding the operator's Lease",
          "short",
          gauge("leader_election_master_status", ["pod"], "", "max", s),
        ),
      ],
    };
  return {
    title: "Sharding",
    panels: [
      timeseries(
        "Shards held",
        "Virtual shards each replica holds",
        "short",
        gauge("kubeloop_shards_held", ["pod"], "", "sum", s),
      ),
      timeseries(
        "Shard handovers",
        "Shards taken (acquired), given up (released) or lost",
        "short",
        increased("kubeloop_shard_handovers_total", ["event"]),
      ),
    ],
  };
}

const webhooks: RowSpec = {
  title: "Webhooks",
  panels: [
    timeseries(
      "Webhook requests",
      "Admission and conversion requests per second, per path and HTTP code; handlers that threw or timed out",
      "ops",
      rated("controller_runtime_webhook_requests_total", ["webhook", "code"], "", s),
      rated("kubeloop_webhook_handler_failures_total", ["webhook", "reason"], "failed", s),
    ),
    timeseries(
      "Webhook latency",
      "How long a webhook request takes (the apiserver waits for it)",
      "s",
      ...quantiles("controller_runtime_webhook_latency_seconds", ["webhook"], s, "{{webhook}}"),
    ),
    timeseries(
      "Webhook requests in flight",
      "Requests being served",
      "short",
      gauge("controller_runtime_webhook_requests_in_flight", ["webhook"], "", "sum", s),
    ),
  ],
};

const apiClient: RowSpec = {
  title: "API server client",
  panels: [
    timeseries(
      "API requests",
      "Requests to the apiserver per second, per method and HTTP code",
      "ops",
      rated("rest_client_requests_total", ["method", "code"], "", s),
    ),
    timeseries(
      "API request latency",
      "How long a request to the apiserver takes",
      "s",
      ...quantiles("rest_client_request_duration_seconds", ["verb"], s, "{{verb}}"),
    ),
    timeseries(
      "API retries",
      "Requests retried (429 or an apiserver away), per verb and code",
      "ops",
      rated("rest_client_request_retries_total", ["verb", "code"], "", s),
    ),
  ],
};

const process: RowSpec = {
  title: "Process",
  panels: [
    timeseries(
      "CPU",
      "CPU seconds per second, per pod",
      "short",
      rated("process_cpu_seconds_total", ["pod"], "", s),
    ),
    timeseries(
      "Memory",
      "Resident memory and the JavaScript heap in use, per pod",
      "bytes",
      gauge("process_resident_memory_bytes", ["pod"], "resident", "sum", s),
      gauge("nodejs_heap_size_used_bytes", ["pod"], "heap", "sum", s),
    ),
    timeseries(
      "Event loop lag",
      "p99 of the event loop's lag: work that blocks it delays every reconcile",
      "s",
      gauge("nodejs_eventloop_lag_p99_seconds", ["pod"], "", "max", s),
    ),
  ],
};

/** The dashboard's rows: webhook panels when the operator has webhooks, sharding or leader election as it runs. */
export function dashboardRows(options: MonitoringOptions): RowSpec[] {
  return [
    overview(options),
    reconciliation,
    workQueue,
    informers,
    ownership,
    leadership(options),
    ...(options.webhooks ? [webhooks] : []),
    apiClient,
    process,
  ];
}
