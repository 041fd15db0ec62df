import type { OwnWriteWait } from "../cache/index.ts";
import { noopQueueMetrics, type QueueMetrics } from "../queue/index.ts";
import type { ReconcileReporting } from "./reconciler.ts";

/** Outcome labels of `controller_runtime_reconcile_total`. */
export type ReconcileResult = "success" | "error" | "requeue" | "requeue_after";

/**
 * What threw while a worker handled a reconcile's outcome, as
 * `kubeloop_reconcile_handling_errors_total{source}` counts it: the `errorPolicy`, the
 * `rateLimiter` (or an invalid delay it answered), the `logger` (a hook), the `outcome` handling
 * otherwise, or a `worker` loop that died.
 */
export type HandlingFailure = "errorPolicy" | "rateLimiter" | "logger" | "outcome" | "worker";

/**
 * Hooks a controller calls; the manager binds them to controller-runtime's metric names. Only the
 * {@link ReconcileReporting} part reaches a reconciler, as `ctx.report`.
 */
export interface ControllerMetrics extends ReconcileReporting {
  /** `controller_runtime_reconcile_total` and `controller_runtime_reconcile_time_seconds`. */
  reconciled(result: ReconcileResult, seconds: number): void;
  /** `controller_runtime_reconcile_errors_total`, and `..._terminal_reconcile_errors_total` when terminal. */
  failed(terminal: boolean): void;
  /** `controller_runtime_reconcile_timeouts_total`: a reconcile ran past `reconciliationTimeoutMs`. */
  timedOut(): void;
  /** `kubeloop_read_own_writes_waits_total{outcome}`: a reconcile waited for the cache to show its key's last writes. */
  ownWritesWaited(outcome: OwnWriteWait): void;
  /** `kubeloop_reconcile_handling_errors_total{source}`: the worker survived a throw outside the reconcile. */
  handlingFailed(source: HandlingFailure): void;
  /** `controller_runtime_active_workers`. */
  activeWorkers(count: number): void;
  /** `controller_runtime_max_concurrent_reconciles`. */
  maxConcurrent(count: number): void;
  /** Why keys were queued: `kubeloop_reconcile_triggers_total{trigger}`. */
  triggered(reason: string): void;
  /** The `workqueue_*` metrics of this controller's queue. */
  readonly queue: QueueMetrics;
}

/** Metrics hooks that record nothing. */
export const noopControllerMetrics: ControllerMetrics = {
  reconciled() {},
  failed() {},
  timedOut() {},
  ownWritesWaited() {},
  handlingFailed() {},
  activeWorkers() {},
  maxConcurrent() {},
  triggered() {},
  driftRepaired() {},
  conditionTransitioned() {},
  queue: noopQueueMetrics,
};
