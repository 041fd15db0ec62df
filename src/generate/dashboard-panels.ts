/**
 * What the operator's Grafana dashboard shows, row by row: controller-runtime's reconcile and work
 * queue metrics as kubebuilder's dashboards show them, and what kubeloop adds (why keys were
 * queued, informer sync and watch health, drift repairs, condition transitions, shards), each
 * panel's queries over the dashboard's `$job` and `$namespace` (and `$controller`) variables.
 * `dashboard.ts` lays them out as Grafana JSON.
 */
import { METRICS, type MetricDefinition, PROCESS_METRICS } from "../metrics/index.ts";
import type { MonitoringOptions } from "./monitoring.ts";
import { by, increase, type QueryLabel, quantile, rate, select } from "./queries.ts";

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

/** Makes targets of counters: `fn` (`rate`, `increase`) of one over the panel's window, summed by `labels`, in `defaultSelector`'s series unless told. */
const countedBy =
  (fn: typeof rate, defaultSelector: string) =>
  <M extends MetricDefinition<"counter">>(
    metric: M,
    labels: QueryLabel<M>[],
    suffix = "",
    selector = defaultSelector,
  ): Target => [by(labels, fn(metric, selector, window)), legend(labels, suffix)];

/** Counter `metric`'s per-second rate summed by `labels` (of the chosen controllers unless told). */
const rated = countedBy(rate, c);

/** Counter `metric`'s increase over the panel's step, summed by `labels`. */
const increased = countedBy(increase, s);

/** Gauge `metric` by `labels`, folded with `op`. */
const gauge = <M extends MetricDefinition<"gauge">>(
  metric: M,
  labels: QueryLabel<M>[],
  suffix = "",
  op = "sum",
  selector = c,
): Target => [by(labels, select(metric, selector), op), legend(labels, suffix)];

/** p50, p90 and p99 of histogram `family` per `labels`, each legend led by its quantile. */
function quantiles<M extends MetricDefinition<"histogram">>(
  family: M,
  labels: readonly QueryLabel<M>[],
  selector: string,
  legend: string,
) {
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
        `sum(${select(METRICS.shardsHeld, s)})`,
      )
    : stat(
        "Leader",
        "The pod holding the operator's Lease",
        "short",
        `${by(["pod"], select(METRICS.leaderElectionMasterStatus, s), "max")} == 1`,
        "{{pod}}",
      );
  return {
    title: "Overview",
    panels: [
      stat("Reconciles", "Reconciles per second", "ops", `sum(${rate(METRICS.reconcileTotal, s, window)})`),
      stat(
        "Reconcile errors",
        "The share of reconciles that failed (and are retried)",
        "percentunit",
        `sum(${rate(METRICS.reconcileErrors, s, window)}) / sum(${rate(METRICS.reconcileTotal, s, window)})`,
      ),
      stat("Queued", "Keys waiting in the work queues", "short", `sum(${select(METRICS.queueDepth, s)})`),
      stat(
        "Informers not synced",
        "Kinds whose cache has not synced or whose list or watch fails (see /readyz?verbose)",
        "short",
        `sum(1 - ${select(METRICS.informerSynced, s)})`,
      ),
      leadership,
      stat(
        "Drift repairs (1h)",
        "Owned objects put back after someone else changed or deleted them, in the last hour",
        "short",
        `sum(${increase(METRICS.driftRepairs, s, "1h")})`,
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
      rated(METRICS.reconcileTotal, ["controller", "result"]),
    ),
    timeseries(
      "Reconcile errors",
      "Failed reconciles per second: retried with backoff, or terminal (not retried until the object changes); timed out: those that ran past reconciliationTimeoutMs, among the retried",
      "ops",
      rated(METRICS.reconcileErrors, ["controller"], "retried"),
      rated(METRICS.terminalReconcileErrors, ["controller"], "terminal"),
      rated(METRICS.reconcileTimeouts, ["controller"], "timed out"),
    ),
    timeseries(
      "Reconcile time",
      "How long a reconcile takes",
      "s",
      ...quantiles(METRICS.reconcileTime, ["controller"], c, "{{controller}}"),
    ),
    timeseries(
      "Workers",
      "Reconciles running at once, against the most allowed (maxConcurrentReconciles)",
      "short",
      gauge(METRICS.activeWorkers, ["controller"], "active"),
      gauge(METRICS.maxConcurrentReconciles, ["controller"], "max"),
    ),
    timeseries(
      "Reconcile triggers",
      "Why keys were queued: the watch event or resync that asked for a reconcile",
      "ops",
      rated(METRICS.reconcileTriggers, ["controller", "trigger"]),
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
      gauge(METRICS.queueDepth, ["controller", "priority"]),
    ),
    timeseries(
      "Adds and retries",
      "Keys added per second, and keys queued again after a failure",
      "ops",
      rated(METRICS.queueAdds, ["controller"], "adds"),
      rated(METRICS.queueRetries, ["controller"], "retries"),
    ),
    timeseries(
      "Time in queue",
      "How long a key waits before a worker takes it",
      "s",
      ...quantiles(METRICS.queueDuration, ["controller"], c, "{{controller}}"),
    ),
    timeseries(
      "Work duration",
      "How long a worker holds a key",
      "s",
      ...quantiles(METRICS.workDuration, ["controller"], c, "{{controller}}"),
    ),
    timeseries(
      "Work in progress",
      "Seconds of work in progress, and the longest-running reconcile: a steady climb means stuck workers",
      "s",
      gauge(METRICS.unfinishedWork, ["controller"], "unfinished"),
      gauge(METRICS.longestRunningProcessor, ["controller"], "longest", "max"),
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
      gauge(METRICS.informerSynced, ["kind"], "", "min", s),
    ),
    timeseries(
      "Cached objects",
      "Objects in the informer caches, per kind",
      "short",
      gauge(METRICS.cacheObjects, ["kind"], "", "sum", s),
    ),
    timeseries(
      "Cache memory",
      "Estimated heap bytes of the informer caches, per kind (kubeloop_cache_bytes)",
      "bytes",
      gauge(METRICS.cacheBytes, ["kind"], "", "sum", s),
    ),
    timeseries(
      "Watch events",
      "Watch events received per second, per kind and type",
      "ops",
      rated(METRICS.watchEvents, ["kind", "type"], "", s),
    ),
    timeseries(
      "Since the last watch event",
      "Seconds since a kind's watch last received anything (event or bookmark)",
      "s",
      gauge(METRICS.watchSecondsSinceLastEvent, ["kind"], "", "max", s),
    ),
    timeseries(
      "Relists and reconnects",
      "Full lists and watch reconnects, per kind and reason",
      "short",
      increased(METRICS.watchRelists, ["kind", "reason"], "relist"),
      increased(METRICS.watchReconnects, ["kind", "reason"], "reconnect"),
    ),
    timeseries(
      "Cache repairs and restarts",
      "Objects a periodic relist found the cache wrong about (events the watch missed), and informers restarted after dying",
      "short",
      increased(METRICS.cacheDivergence, ["kind", "change"], "repaired"),
      increased(METRICS.informerRestarts, ["kind"], "restarted"),
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
      increased(METRICS.driftRepairs, ["kind", "manager"]),
    ),
    timeseries(
      "Condition transitions",
      "Condition status changes written, per kind, condition and status",
      "short",
      increased(METRICS.conditionTransitions, ["kind", "condition", "status"]),
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
          gauge(METRICS.leaderElectionMasterStatus, ["pod"], "", "max", s),
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
        gauge(METRICS.shardsHeld, ["pod"], "", "sum", s),
      ),
      timeseries(
        "Shard handovers",
        "Shards taken (acquired), given up (released) or lost",
        "short",
        increased(METRICS.shardHandovers, ["event"]),
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
      rated(METRICS.webhookRequests, ["webhook", "code"], "", s),
      rated(METRICS.webhookHandlerFailures, ["webhook", "reason"], "failed", s),
    ),
    timeseries(
      "Webhook latency",
      "How long a webhook request takes (the apiserver waits for it)",
      "s",
      ...quantiles(METRICS.webhookLatency, ["webhook"], s, "{{webhook}}"),
    ),
    timeseries(
      "Webhook requests in flight",
      "Requests being served",
      "short",
      gauge(METRICS.webhookRequestsInFlight, ["webhook"], "", "sum", s),
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
      rated(METRICS.restClientRequests, ["method", "code"], "", s),
    ),
    timeseries(
      "API request latency",
      "How long a request to the apiserver takes",
      "s",
      ...quantiles(METRICS.restClientRequestDuration, ["verb"], s, "{{verb}}"),
    ),
    timeseries(
      "API retries",
      "Requests retried (429 or an apiserver away), per verb and code",
      "ops",
      rated(METRICS.restClientRequestRetries, ["verb", "code"], "", s),
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
      rated(PROCESS_METRICS.cpuSeconds, ["pod"], "", s),
    ),
    timeseries(
      "Memory",
      "Resident memory and the JavaScript heap in use, per pod",
      "bytes",
      gauge(PROCESS_METRICS.residentMemory, ["pod"], "resident", "sum", s),
      gauge(PROCESS_METRICS.heapUsed, ["pod"], "heap", "sum", s),
    ),
    timeseries(
      "Event loop lag",
      "p99 of the event loop's lag: work that blocks it delays every reconcile",
      "s",
      gauge(PROCESS_METRICS.eventLoopLagP99, ["pod"], "", "max", s),
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
