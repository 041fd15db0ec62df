/**
 * The messages the kit and the operator process (`operator-main.ts`) exchange over Node's IPC channel.
 * Requests carry an `id` that the reply repeats.
 */

import type { LabelSelector } from "../../../api/index.ts";
import type { ShardKey } from "../../../sharding/index.ts";

/** What the operator process reports about its controllers. */
export interface RunnerState {
  /** Every controller's queue is empty and no reconcile is running. */
  idle: boolean;
  /** Keys queued (including keys waiting while in flight), over every controller. */
  queued: number;
  /** Reconciles running now. */
  active: number;
  /** Reconciles finished since the process started, over every controller. */
  reconciles: number;
  /** The virtual shards the process holds (with sharding; empty otherwise). */
  shards: number[];
}

/**
 * One finished reconcile of the operator process, from its controllers' record of their last
 * reconciles (the manager's live page's, the newest 50 per controller): what the kit judges a
 * reconcile's failures by.
 */
export interface ReconcileOutcome {
  /** The `apiVersion` and `kind` of the controller's primary kind. */
  apiVersion: string;
  kind: string;
  /** The key reconciled, `namespace/name`. */
  key: string;
  /** As `controller_runtime_reconcile_total{result}` counts it: `success`, `error`, `requeue`, `requeue_after`. */
  result: string;
  /** The error's message, for `result: "error"`. */
  error?: string;
  /** When it ended (epoch ms). */
  endedAt: number;
}

/** Kit → operator process. `stop` shuts the manager down gracefully; the process then exits. */
export type RunnerRequest =
  | { id: number; type: "start" }
  | { id: number; type: "reconcile-all" }
  | { id: number; type: "state" }
  | { id: number; type: "reconciles" }
  | { id: number; type: "stop" };

/** Operator process → kit. */
export type RunnerMessage =
  | { type: "loaded" }
  | { type: "ready"; metricsPort: number }
  | { type: "failed"; error: string }
  | { type: "reply"; id: number; enqueued: number }
  | { type: "reply"; id: number; state: RunnerState }
  | { type: "reply"; id: number; reconciles: ReconcileOutcome[] };

/** The operator process's settings, passed in {@link RUNNER_ENV} as JSON. */
export interface RunnerSettings {
  /** Absolute path of the operator module. */
  operator: string;
  /** Kubeconfig the operator uses: the proxy's. */
  kubeconfig: string;
  /** Watch inactivity detection of the operator's informers. */
  watchInactivityMs: number;
  /** Period of the operator's informer relists. */
  relistMs: number;
  /** pino level of the operator's logs (on stderr). */
  logLevel: string;
  /** Leader election, off unless given: the Lease, this replica's identity and the timings. */
  leaderElection?: RunnerElection;
  /** Sharding across the kit's replicas, off unless given: Leases of the kit's, this replica's identity. */
  sharding?: RunnerSharding;
  /** How the operator's declared webhooks are served, when it declares any. */
  webhooks: RunnerWebhooks;
  /**
   * Run the operator in a fleet instead (`kubeloop/multicluster`'s `Fleet`): its controllers on
   * each of these member clusters, each through its kubeconfig (its proxy's); `kubeconfig` unused.
   */
  fleet?: RunnerMember[];
}

/** A member cluster of a fleet run: its name in the fleet and the kubeconfig the operator reaches it with. */
export interface RunnerMember {
  name: string;
  kubeconfig: string;
}

/**
 * The webhooks of an operator process: served on a free port with a certificate of its own, through
 * configurations named for the session (every process of a session applies the same ones, the last
 * started pointing them at itself) and admitting only the session's namespaces.
 */
export interface RunnerWebhooks {
  configurationName: string;
  namespaceSelector: LabelSelector;
}

/** The sharding of an operator process: what places objects, the shards, and where the Leases live. */
export interface RunnerSharding {
  key: ShardKey;
  shards: number;
  namespace: string;
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/** The leader election of an operator process: a Lease of the kit's, short timings. */
export interface RunnerElection {
  name: string;
  namespace: string;
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/** The environment variable holding {@link RunnerSettings}. */
export const RUNNER_ENV = "KUBELOOP_CONFORMANCE_RUNNER";
