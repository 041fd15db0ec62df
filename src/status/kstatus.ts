import type { ObjectMeta } from "../api/index.ts";

/** kstatus's `Reconciling` condition: True while the controller works towards the spec. */
export const RECONCILING = "Reconciling";
/** kstatus's `Stalled` condition: True when the controller cannot make progress. */
export const STALLED = "Stalled";
/** Reason kstatus gives when `status.observedGeneration` lags `metadata.generation`. */
export const LATEST_GENERATION_NOT_OBSERVED = "LatestGenerationNotObserved";

/** The statuses `kstatus.Compute` produces (`NotFound` and `Unknown` come from pollers, not from it). */
export type KStatus = "InProgress" | "Current" | "Failed" | "Terminating";

/** What {@link kstatus} computes. */
export interface KStatusResult {
  readonly status: KStatus;
  /** The reason of the condition that decided, when one did. */
  readonly reason?: string;
  readonly message: string;
}

/** The parts of an object {@link kstatus} reads; `status` may be anything, it is read defensively. */
export interface KStatusSubject {
  kind?: string;
  metadata: ObjectMeta;
  status?: unknown;
}

/** A condition read from an unchecked object: only `type` and `status` are known to be strings. */
interface LooseCondition {
  type: string;
  status: string;
  reason?: unknown;
  message?: unknown;
}

/**
 * Computes the kstatus of a custom resource as `sigs.k8s.io/cli-utils` `status.Compute` does, so
 * the result matches what Flux, Helm 4 and kpt see. In order:
 * 1. `metadata.deletionTimestamp` set → `Terminating`;
 * 2. `status.observedGeneration` present and not `metadata.generation` → `InProgress`
 *    (reason `LatestGenerationNotObserved`);
 * 3. the first of `Reconciling` / `Stalled` that is True in list order → `InProgress` / `Failed`
 *    with that condition's reason and message;
 * 4. a `Ready` condition: True → `Current`, False or Unknown → `InProgress`;
 * 5. otherwise → `Current`.
 *
 * @example
 * ```ts
 * const { status, message } = kstatus(obj);
 * if (status === "Failed") log.warn({ message }, "stuck");
 * ```
 */
export function kstatus(obj: KStatusSubject): KStatusResult {
  if (obj.metadata.deletionTimestamp)
    return { status: "Terminating", message: "Resource scheduled for deletion" };
  const status = isRecord(obj.status) ? obj.status : {};
  const lag = generationLag(obj, status.observedGeneration);
  if (lag) return lag;
  const conditions = looseConditions(status.conditions);
  return (
    standardConditions(conditions) ??
    readyCondition(conditions) ?? { status: "Current", message: "Resource is current" }
  );
}

function generationLag(obj: KStatusSubject, observed: unknown): KStatusResult | undefined {
  const generation = obj.metadata.generation;
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

function fromCondition(status: KStatus, condition: LooseCondition): KStatusResult {
  const message = typeof condition.message === "string" ? condition.message : "";
  return typeof condition.reason === "string"
    ? { status, reason: condition.reason, message }
    : { status, message };
}

function looseConditions(value: unknown): LooseCondition[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (c): c is LooseCondition => isRecord(c) && typeof c.type === "string" && typeof c.status === "string",
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
