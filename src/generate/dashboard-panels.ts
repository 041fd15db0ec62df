/**
 * What the operator's Grafana dashboard shows, row by row: controller-runtime's reconcile and work
 * queue metrics as kubebuilder's dashboards show them, and what kubeloop adds (why keys were
 * queued, informer sync and watch health, drift repairs, condition transitions, shards), each
 * panel's queries over the dashboard's `$job` and `$namespace` (and `$controller`) variables.
 * `dashboard.ts` lays them out as Grafana JSON.
 */
import type { MonitoringOptions } from "./monitoring.ts";
import { by, increase, quantile, rate } from "./queries.ts";

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

const timeseries = (
  title: string,
  description: string,
  unit: string,
  ...targets: (readonly [string, string])[]
): PanelSpec => ({ title, description, unit, targets });

const stat = (title: string, description: string, unit: string, expr: string, legend = ""): PanelSpec => ({
  ...timeseries(title, description, unit, [expr, legend]),
  stat: true,
});

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
    timeseries("Reconciles by result", "Reconciles per second, per controller and result", "ops", [
      by(["controller", "result"], rate("controller_runtime_reconcile_total", c, window)),
      "{{controller}} {{result}}",
    ]),
    timeseries(
      "Reconcile errors",
      "Failed reconciles per second: retried with backoff, or terminal (not retried until the object changes)",
      "ops",
      [
        by(["controller"], rate("controller_runtime_reconcile_errors_total", c, window)),
        "{{controller}} retried",
      ],
      [
        by(["controller"], rate("controller_runtime_terminal_reconcile_errors_total", c, window)),
        "{{controller}} terminal",
      ],
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
      [by(["controller"], `controller_runtime_active_workers{${c}}`), "{{controller}} active"],
      [by(["controller"], `controller_runtime_max_concurrent_reconciles{${c}}`), "{{controller}} max"],
    ),
    timeseries(
      "Reconcile triggers",
      "Why keys were queued: the watch event or resync that asked for a reconcile",
      "ops",
      [
        by(["controller", "trigger"], rate("kubeloop_reconcile_triggers_total", c, window)),
        "{{controller}} {{trigger}}",
      ],
    ),
  ],
};

const workQueue: RowSpec = {
  title: "Work queue",
  panels: [
    timeseries("Queue depth", "Keys waiting, per controller and priority", "short", [
      by(["controller", "priority"], `workqueue_depth{${c}}`),
      "{{controller}} priority {{priority}}",
    ]),
    timeseries(
      "Adds and retries",
      "Keys added per second, and keys queued again after a failure",
      "ops",
      [by(["controller"], rate("workqueue_adds_total", c, window)), "{{controller}} adds"],
      [by(["controller"], rate("workqueue_retries_total", c, window)), "{{controller}} retries"],
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
      [by(["controller"], `workqueue_unfinished_work_seconds{${c}}`), "{{controller}} unfinished"],
      [
        by(["controller"], `workqueue_longest_running_processor_seconds{${c}}`, "max"),
        "{{controller}} longest",
      ],
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
      [by(["kind"], `kubeloop_informer_synced{${s}}`, "min"), "{{kind}}"],
    ),
    timeseries("Cached objects", "Objects in the informer caches, per kind", "short", [
      by(["kind"], `kubeloop_cache_objects{${s}}`),
      "{{kind}}",
    ]),
    timeseries("Watch events", "Watch events received per second, per kind and type", "ops", [
      by(["kind", "type"], rate("kubeloop_watch_events_total", s, window)),
      "{{kind}} {{type}}",
    ]),
    timeseries(
      "Since the last watch event",
      "Seconds since a kind's watch last received anything (event or bookmark)",
      "s",
      [by(["kind"], `kubeloop_watch_seconds_since_last_event{${s}}`, "max"), "{{kind}}"],
    ),
    timeseries(
      "Relists and reconnects",
      "Full lists and watch reconnects, per kind and reason",
      "short",
      [
        by(["kind", "reason"], increase("kubeloop_watch_relists_total", s, window)),
        "{{kind}} relist {{reason}}",
      ],
      [
        by(["kind", "reason"], increase("kubeloop_watch_reconnects_total", s, window)),
        "{{kind}} reconnect {{reason}}",
      ],
    ),
    timeseries(
      "Cache repairs and restarts",
      "Objects a periodic relist found the cache wrong about (events the watch missed), and informers restarted after dying",
      "short",
      [
        by(["kind", "change"], increase("kubeloop_cache_divergence_total", s, window)),
        "{{kind}} repaired {{change}}",
      ],
      [by(["kind"], increase("kubeloop_informer_restarts_total", s, window)), "{{kind}} restarted"],
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
      [
        by(["kind", "manager"], increase("kubeloop_drift_repairs_total", s, window)),
        "{{kind}} changed by {{manager}}",
      ],
    ),
    timeseries(
      "Condition transitions",
      "Condition status changes written, per kind, condition and status",
      "short",
      [
        by(["kind", "condition", "status"], increase("kubeloop_condition_transitions_total", s, window)),
        "{{kind}} {{condition}}={{status}}",
      ],
    ),
  ],
};

function leadership(options: MonitoringOptions): RowSpec {
  if (!options.sharded)
    return {
      title: "Leader election",
      panels: [
        timeseries("Leader", "1 on the pod holding the operator's Lease", "short", [
          by(["pod"], `leader_election_master_status{${s}}`, "max"),
          "{{pod}}",
        ]),
      ],
    };
  return {
    title: "Sharding",
    panels: [
      timeseries("Shards held", "Virtual shards each replica holds", "short", [
        by(["pod"], `kubeloop_shards_held{${s}}`),
        "{{pod}}",
      ]),
      timeseries("Shard handovers", "Shards taken (acquired), given up (released) or lost", "short", [
        by(["event"], increase("kubeloop_shard_handovers_total", s, window)),
        "{{event}}",
      ]),
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
      [
        by(["webhook", "code"], rate("controller_runtime_webhook_requests_total", s, window)),
        "{{webhook}} {{code}}",
      ],
      [
        by(["webhook", "reason"], rate("kubeloop_webhook_handler_failures_total", s, window)),
        "{{webhook}} failed: {{reason}}",
      ],
    ),
    timeseries(
      "Webhook latency",
      "How long a webhook request takes (the apiserver waits for it)",
      "s",
      ...quantiles("controller_runtime_webhook_latency_seconds", ["webhook"], s, "{{webhook}}"),
    ),
    timeseries("Webhook requests in flight", "Requests being served", "short", [
      by(["webhook"], `controller_runtime_webhook_requests_in_flight{${s}}`),
      "{{webhook}}",
    ]),
  ],
};

const apiClient: RowSpec = {
  title: "API server client",
  panels: [
    timeseries("API requests", "Requests to the apiserver per second, per HTTP code and method", "ops", [
      by(["code", "method"], rate("rest_client_requests_total", s, window)),
      "{{method}} {{code}}",
    ]),
    timeseries(
      "API request latency",
      "How long a request to the apiserver takes",
      "s",
      ...quantiles("rest_client_request_duration_seconds", ["verb"], s, "{{verb}}"),
    ),
    timeseries("API retries", "Requests retried (429 or an apiserver away), per code and verb", "ops", [
      by(["code", "verb"], rate("rest_client_request_retries_total", s, window)),
      "{{verb}} {{code}}",
    ]),
  ],
};

const process: RowSpec = {
  title: "Process",
  panels: [
    timeseries("CPU", "CPU seconds per second, per pod", "short", [
      by(["pod"], rate("process_cpu_seconds_total", s, window)),
      "{{pod}}",
    ]),
    timeseries(
      "Memory",
      "Resident memory and the JavaScript heap in use, per pod",
      "bytes",
      [by(["pod"], `process_resident_memory_bytes{${s}}`), "{{pod}} resident"],
      [by(["pod"], `nodejs_heap_size_used_bytes{${s}}`), "{{pod}} heap"],
    ),
    timeseries(
      "Event loop lag",
      "p99 of the event loop's lag: work that blocks it delays every reconcile",
      "s",
      [by(["pod"], `nodejs_eventloop_lag_p99_seconds{${s}}`, "max"), "{{pod}}"],
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
