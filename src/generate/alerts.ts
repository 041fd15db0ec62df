/**
 * Prometheus alert rules for the ways an operator fails that matter: reconciles erroring, a work
 * queue that does not drain or a reconcile stuck, an informer not synced, leadership flapping or
 * missing (shards unowned or lost, when sharded), drift repairs spiking (someone fights the
 * operator over its children) and webhooks failing. Each has a severity, a `for:` duration, and a
 * description that names what to look at. As a rules file (`rule_files:`) and as the Prometheus
 * Operator's `PrometheusRule`.
 */
import { METRICS } from "../metrics/index.ts";
import type { MonitoringOptions } from "./monitoring.ts";
import { by, increase, rate, select } from "./queries.ts";

/** One alerting rule, as Prometheus' rules files hold it. */
export interface AlertRule {
  readonly alert: string;
  readonly expr: string;
  readonly for: string;
  readonly labels: { readonly severity: "warning" | "critical"; readonly [label: string]: string };
  readonly annotations: { readonly summary: string; readonly description: string };
}

/** Prometheus' rules file: groups of rules. */
export interface RuleGroups {
  readonly groups: readonly { readonly name: string; readonly rules: readonly AlertRule[] }[];
}

/** The labels each alert keeps: where it fired, and what. */
const where = ["namespace", "job"];
const at = "{{ $labels.namespace }}/{{ $labels.job }}";

type Rule = Omit<AlertRule, "labels"> & { severity: AlertRule["labels"]["severity"] };

function reconcileErrors(s: string): Rule {
  const errors = by([...where, "controller"], rate(METRICS.reconcileErrors, s, "5m"));
  const all = by([...where, "controller"], rate(METRICS.reconcileTotal, s, "5m"));
  return {
    alert: "KubeloopReconcileErrors",
    expr: `${errors} / ${all} > 0.1`,
    for: "15m",
    severity: "warning",
    annotations: {
      summary: "Reconciles keep failing.",
      description: `{{ $value | humanizePercentage }} of the reconciles of controller {{ $labels.controller }} (${at}) failed over 5 minutes, for 15 minutes. Look at: the operator's log lines "reconcile failed; retrying" with controller={{ $labels.controller }} (each names the object and the error); the Warning events of reason ReconcileError on the objects (kubectl get events -A --field-selector reason=ReconcileError); a 403 there is missing RBAC (regenerate with kubeloop generate), a 409 a second writer, a 5xx or timeout the apiserver.`,
    },
  };
}

function queueNotDraining(s: string): Rule {
  const depth = by([...where, "controller"], select(METRICS.queueDepth, s));
  const change = by([...where, "controller"], `delta(${select(METRICS.queueDepth, s)}[15m])`);
  return {
    alert: "KubeloopWorkqueueNotDraining",
    expr: `min_over_time(${depth}[15m:1m]) > 0 and ${change} >= 0`,
    for: "5m",
    severity: "warning",
    annotations: {
      summary: "A work queue does not drain.",
      description: `The work queue of controller {{ $labels.controller }} (${at}) has not been empty for 15 minutes and holds no fewer keys than 15 minutes ago. Look at: the dashboard's Workers panel (all workers busy: raise maxConcurrentReconciles, or make reconciles faster), Work in progress (a reconcile that never ends: an await without ctx.signal or a timeout), Reconcile time, and API request latency and 429s (${METRICS.restClientRequests.name}{code="429"}: the client's qps/burst or the apiserver's priority and fairness).`,
    },
  };
}

function reconcileStuck(s: string): Rule {
  return {
    alert: "KubeloopReconcileStuck",
    expr: `${by([...where, "controller"], select(METRICS.longestRunningProcessor, s), "max")} > 600`,
    for: "5m",
    severity: "warning",
    annotations: {
      summary: "A reconcile has been running for over 10 minutes.",
      description: `A reconcile of controller {{ $labels.controller }} (${at}) has been running for {{ $value | humanizeDuration }}; its key is not reconciled again until it ends. Look at: what the reconciler awaits (a request, a child, an external system) without passing ctx.signal or a timeout; the operator's log lines with controller={{ $labels.controller }} and that reconcileID.`,
    },
  };
}

function informerNotSynced(s: string): Rule {
  return {
    alert: "KubeloopInformerNotSynced",
    expr: `${by([...where, "pod", "kind"], select(METRICS.informerSynced, s), "min")} == 0`,
    for: "10m",
    severity: "critical",
    annotations: {
      summary: "An informer's cache is not in sync.",
      description: `The cache of {{ $labels.kind }} in pod {{ $labels.pod }} (${at}) has not synced, or its list or watch has failed, for 10 minutes: its controllers act on a stale view or not at all. Look at: the pod's /readyz?verbose (names the informer, its state and last error); the operator's log lines about the {{ $labels.kind }} informer; a 403 is missing RBAC (kubectl auth can-i list and watch the kind as the operator's ServiceAccount), a 404 a CRD not installed (kubeloop install).`,
    },
  };
}

function leaderRules(s: string): Rule[] {
  const status = select(METRICS.leaderElectionMasterStatus, s);
  return [
    {
      alert: "KubeloopLeaderFlapping",
      expr: `${by([...where, "name"], `changes(${status}[1h])`)} > 6`,
      for: "5m",
      severity: "warning",
      annotations: {
        summary: "Leadership of the operator keeps changing hands.",
        description: `The Lease {{ $labels.name }} (${at}) changed hands {{ $value }} times in the last hour (a handover counts once or twice); every handover pauses reconciles while the new leader takes over. Look at: restarts of the operator's pods (OOMKilled: raise the memory limit; failing liveness probes: /healthz), the log lines "stopped leading" and "leadership lost", and the latency of Lease renewals (API request latency of PUT); CPU throttling delays renewals too.`,
      },
    },
    {
      alert: "KubeloopNoLeader",
      expr: `${by([...where, "name"], status, "max")} == 0`,
      for: "5m",
      severity: "critical",
      annotations: {
        summary: "No replica of the operator leads: nothing is reconciled.",
        description: `No pod of ${at} has held the Lease {{ $labels.name }} for 5 minutes, so no controller runs. Look at: kubectl get lease {{ $labels.name }} -n {{ $labels.namespace }} -o yaml (a holderIdentity outside these pods, e.g. kubeloop run --leader-elect on a workstation, holds it), the operator's leader election log lines (a 403 on leases is missing RBAC: regenerate with kubeloop generate).`,
      },
    },
  ];
}

function shardRules(s: string, shards: number): Rule[] {
  return [
    {
      alert: "KubeloopShardsUnowned",
      expr: `${by(where, select(METRICS.shardsHeld, s))} < ${shards}`,
      for: "5m",
      severity: "critical",
      annotations: {
        summary: "Some shards have no replica: their objects are not reconciled.",
        description: `The replicas of ${at} hold {{ $value }} of ${shards} shards, for 5 minutes. Look at: the replicas running (kubectl get pods), their log lines about shards, and their Lease permissions (kubectl get leases -n {{ $labels.namespace }}).`,
      },
    },
    {
      alert: "KubeloopShardsLost",
      expr: `${by(where, increase(METRICS.shardHandovers, s, "1h", { event: "lost" }))} > 2`,
      for: "5m",
      severity: "warning",
      annotations: {
        summary: "Replicas keep losing shards.",
        description: `Replicas of ${at} lost {{ $value }} shards in the last hour (a Lease not renewed in time); each loss aborts that shard's reconciles until another replica takes it. Look at: pod restarts and CPU throttling, and the latency of Lease renewals (API request latency of PUT).`,
      },
    },
  ];
}

function driftSpiking(s: string): Rule {
  return {
    alert: "KubeloopDriftRepairsSpiking",
    expr: `${by([...where, "kind", "manager"], increase(METRICS.driftRepairs, s, "15m"))} > 10`,
    for: "5m",
    severity: "warning",
    annotations: {
      summary: "Someone keeps changing objects the operator owns, and it keeps putting them back.",
      description: `Field manager {{ $labels.manager }} changed or deleted {{ $labels.kind }} objects owned by ${at} {{ $value | humanize }} times in 15 minutes, and the operator repaired each: two writers fight. Look at: the DriftRepaired Warning events (kubectl get events -A --field-selector reason=DriftRepaired) naming each object and field, kubectl get the object -o yaml --show-managed-fields to see what {{ $labels.manager }} writes; then stop that writer (a GitOps tool, another controller, a mutating webhook, a script) or stop the operator owning those fields.`,
    },
  };
}

function webhookFailures(s: string): Rule {
  const failed = by([...where, "webhook"], rate(METRICS.webhookRequests, s, "5m", { code: /5../ }));
  const all = by([...where, "webhook"], rate(METRICS.webhookRequests, s, "5m"));
  return {
    alert: "KubeloopWebhookErrors",
    expr: `${failed} / ${all} > 0.05`,
    for: "10m",
    severity: "warning",
    annotations: {
      summary: "A webhook answers with errors.",
      description: `{{ $value | humanizePercentage }} of the requests to webhook {{ $labels.webhook }} (${at}) failed with a 5xx over 5 minutes; with failurePolicy Fail the apiserver refuses the writes it guards. Look at: ${METRICS.webhookHandlerFailures.name}{webhook="{{ $labels.webhook }}"} (reason error: the handler threw, see the operator's log; timeout: it did not answer in time) and the dashboard's Webhook latency.`,
    },
  };
}

/**
 * The operator's alert rules: one group named after it, each rule selecting the operator's series
 * by `job` and `namespace`, labelled `severity` and `operator` (its name) for routing.
 *
 * @example
 * ```ts
 * writeFileSync(
 *   "alerts.yaml",
 *   toYaml([alertRules({ name: "widgets", namespace: "widgets", job: "widgets-metrics" })]),
 * );
 * ```
 */
export function alertRules(options: MonitoringOptions): RuleGroups {
  const s = `job="${options.job}", namespace="${options.namespace}"`;
  const rules: Rule[] = [
    reconcileErrors(s),
    queueNotDraining(s),
    reconcileStuck(s),
    informerNotSynced(s),
    ...(options.sharded ? shardRules(s, options.sharded.shards) : leaderRules(s)),
    driftSpiking(s),
    ...(options.webhooks ? [webhookFailures(s)] : []),
  ];
  return {
    groups: [
      {
        name: `${options.name}.rules`,
        rules: rules.map(({ alert, expr, for: duration, severity, annotations }) => ({
          alert,
          expr,
          for: duration,
          labels: { severity, operator: options.name },
          annotations,
        })),
      },
    ],
  };
}
