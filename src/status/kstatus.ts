import type { ObjectMeta } from "../api/index.ts";
import { type Clock, systemClock } from "../clock/index.ts";
import { builtinRule } from "./internal/kstatus-builtins.ts";
import { fromCondition } from "./internal/kstatus-results.ts";
import { conditionsOf, fieldAt, type LooseCondition } from "./internal/loose.ts";

/** kstatus's `Reconciling` condition: True while the controller works towards the spec. */
export const RECONCILING = "Reconciling";
/** kstatus's `Stalled` condition: True when the controller cannot make progress. */
export const STALLED = "Stalled";
/**
 * Reason of `Reconciling=True` while a failing reconcile is retried (`StatusDraft.failing`), as
 * Flux's controllers give it (`meta.ProgressingWithRetryReason`).
 */
export const PROGRESSING_WITH_RETRY = "ProgressingWithRetry";
/** Reason kstatus gives when `status.observedGeneration` lags `metadata.generation`. */
export const LATEST_GENERATION_NOT_OBSERVED = "LatestGenerationNotObserved";

/** The statuses `kstatus.Compute` produces (`NotFound` and `Unknown` come from pollers, not from it). */
export type KStatus = "InProgress" | "Current" | "Failed" | "Terminating";

/** What {@link kstatus} computes. */
export interface KStatusResult {
  readonly status: KStatus;
  /**
   * Why, when something decided against `Current`: the reason of the condition that decided, or
   * the one cli-utils gives its synthesized `Reconciling` / `Stalled` condition (`LessReady`,
   * `JobFailed`, ...). Absent when a built-in kind's rule found it `Current`.
   */
  readonly reason?: string;
  readonly message: string;
}

/**
 * The parts of an object {@link kstatus} reads; `spec` and `status` may be anything, they are read
 * defensively. `apiVersion` tells a built-in kind from a custom resource of the same kind name:
 * without it, the object is judged as a custom resource.
 */
export interface KStatusSubject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: unknown;
  status?: unknown;
}

/**
 * Computes the kstatus of any object as `sigs.k8s.io/cli-utils` v0.37.2 `status.Compute` does, so
 * the result matches what Flux, Helm 4 and kpt see. In order:
 * 1. `metadata.deletionTimestamp` set → `Terminating`;
 * 2. `status.observedGeneration` present and not `metadata.generation` → `InProgress`
 *    (reason `LatestGenerationNotObserved`);
 * 3. the first of `Reconciling` / `Stalled` that is True in list order → `InProgress` / `Failed`
 *    with that condition's reason and message;
 * 4. a built-in kind cli-utils has a rule for (apps Deployment, StatefulSet, DaemonSet,
 *    ReplicaSet; core Pod, PersistentVolumeClaim, Service, and ConfigMap and Secret, always
 *    `Current`; batch Job, and CronJob, always `Current`; policy PodDisruptionBudget;
 *    apiextensions.k8s.io CustomResourceDefinition) → that rule: replica counts for workloads,
 *    the phase and containers for a Pod (a crash loop, or unschedulable for 15 seconds after
 *    creation per `clock`, is `Failed`), the `Failed` condition for a Job, and so on;
 * 5. a `Ready` condition: True → `Current`, False or Unknown → `InProgress`;
 * 6. otherwise → `Current`.
 *
 * Where cli-utils returns an error instead (a Pod in a phase it does not know), the result is
 * `InProgress` with reason `UnknownPhase`.
 *
 * @example
 * ```ts
 * const { status, message } = kstatus(obj);
 * if (status === "Failed") log.warn({ message }, "stuck");
 * ```
 */
export function kstatus(obj: KStatusSubject, clock: Clock = systemClock): KStatusResult {
  if (obj.metadata.deletionTimestamp)
    return { status: "Terminating", message: "Resource scheduled for deletion" };
  const conditions = conditionsOf(obj);
  return (
    generationLag(obj) ??
    standardConditions(conditions) ??
    builtinRule(obj)?.(obj, clock) ??
    readyCondition(conditions) ?? { status: "Current", message: "Resource is current" }
  );
}

function generationLag(obj: KStatusSubject): KStatusResult | undefined {
  const generation = obj.metadata.generation;
  const observed = fieldAt(obj, "status.observedGeneration");
  if (typeof generation !== "number" || typeof observed !== "number" || observed === generation)
    return undefined;
  return {
    status: "InProgress",
    reason: LATEST_GENERATION_NOT_OBSERVED,
    message: `${obj.kind ?? "Resource"} generation is ${generation}, but latest observed generation is ${observed}`,
  };
}

function standardConditions(conditions: readonly LooseCondition[]): KStatusResult | undefined {
  const decisive = conditions.find(
    (c) => (c.type === RECONCILING || c.type === STALLED) && c.status === "True",
  );
  if (!decisive) return undefined;
  return fromCondition(decisive.type === RECONCILING ? "InProgress" : "Failed", decisive);
}

function readyCondition(conditions: readonly LooseCondition[]): KStatusResult | undefined {
  const ready = conditions.find((c) => c.type === "Ready");
  if (!ready) return undefined;
  return fromCondition(ready.status === "True" ? "Current" : "InProgress", ready);
}
