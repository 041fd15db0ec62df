/**
 * Drift attribution: when an owned object was changed or deleted by someone other than its
 * controller, say who. The writer comes from `managedFields` (the informers of owned kinds keep a
 * summary of it): the most recent entry of a manager other than the controller's own.
 */
import type { KubeObject, ManagedFieldsEntry } from "../api/index.ts";
import type { DriftMetrics } from "../controller/index.ts";
import type { EventRecorder } from "../events/index.ts";

/** Who last wrote an object, and how. */
export interface Writer {
  /** Field manager, e.g. `kubectl-edit`, `kubectl-client-side-apply`, `helm`. */
  manager: string;
  /** `Update` or `Apply`. */
  operation: string;
  /** When, if the server recorded it. */
  time?: string;
}

/**
 * The most recent writer of `obj` other than `ownManager`, from its `managedFields`. An entry
 * without a time (the apiserver records none for writes through `/scale`, e.g. `kubectl scale`)
 * counts as the most recent: it lasts only until its fields are taken back.
 */
export function lastForeignWriter(obj: KubeObject | undefined, ownManager: string): Writer | undefined {
  const entries = (obj?.metadata.managedFields ?? []).filter(
    (e): e is ManagedFieldsEntry & { manager: string } =>
      !!e.manager && e.manager !== ownManager && e.subresource !== "status",
  );
  const latest = entries.sort(byTime).at(-1);
  return latest
    ? { manager: latest.manager, operation: latest.operation ?? "Update", time: latest.time }
    : undefined;
}

/** Oldest first; entries without a time last. */
function byTime(a: ManagedFieldsEntry, b: ManagedFieldsEntry): number {
  if (a.time === undefined || b.time === undefined)
    return (a.time === undefined ? 1 : 0) - (b.time === undefined ? 1 : 0);
  return a.time.localeCompare(b.time);
}

/** What happened to the owned object. */
export type Drift = "modified" | "deleted";

/** Where a repair is reported; a `ReconcileContext` fits. */
export interface DriftReporting {
  readonly recorder: Pick<EventRecorder, "warning">;
  readonly report: DriftMetrics;
}

/**
 * Reports a repaired drift: a Warning event on the owner (reason `DriftRepaired`, the child as
 * `related`) naming who changed it, and `kubeloop_drift_repairs_total{kind,manager}`. A deletion records
 * no manager in `managedFields`, so it is reported with the child's last foreign writer when one
 * is known, as `unknown` otherwise.
 */
export function reportDrift(
  reporting: DriftReporting,
  owner: KubeObject,
  child: KubeObject,
  drift: Drift,
  writer: Writer | undefined,
): void {
  const manager = writer?.manager ?? "unknown";
  const name = `${child.kind} ${child.metadata.name}`;
  const by =
    drift === "modified"
      ? `by ${manager} (${writer?.operation ?? "Update"}${writer?.time ? ` at ${writer.time}` : ""})`
      : `(deleted by someone other than this controller${writer ? `; last changed by ${writer.manager}` : ""})`;
  reporting.recorder.warning(owner, "DriftRepaired", "Repair", `${name} was ${drift} ${by}; restored it`, {
    related: child,
  });
  reporting.report.driftRepaired(child.kind, manager);
}
