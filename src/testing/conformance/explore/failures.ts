/**
 * The oracle "no reconcile error that is not on the object" (issue 35): once a run settles, a
 * primary object whose last reconcile failed must say so in its conditions — `Stalled=True`,
 * `Reconciling=True`, or its summary (`Ready`, `Succeeded`) other than True — and not go on showing
 * a stale success. Only the last outcome counts: a failure a later reconcile of the same object
 * retried successfully (a 409 Conflict, the apiserver away, a namespace being deleted: the routine
 * ones) is over, whatever it was; one that repeats until the run settles, or that ended the key's
 * retries (a terminal error), is the object's state and must show.
 */
import { groupOf, type KubeObject, keyOf } from "../../../api/index.ts";
import type { ReconcileOutcome } from "../internal/protocol.ts";

/** A condition as any kind writes it. */
interface LooseCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
}

const conditionsOf = (obj: KubeObject): LooseCondition[] =>
  (obj as { status?: { conditions?: LooseCondition[] } }).status?.conditions ?? [];

/** True when a condition of `obj` tells a failure or unfinished work, as kstatus reads them. */
function saysFailure(obj: KubeObject): boolean {
  return conditionsOf(obj).some(
    (c) =>
      ((c.type === "Stalled" || c.type === "Reconciling") && c.status === "True") ||
      ((c.type === "Ready" || c.type === "Succeeded") && c.status !== "True"),
  );
}

/** `Ready=True (Printed: ...)`, one per condition; `no condition` when there is none. */
function describeConditions(obj: KubeObject): string {
  const conditions = conditionsOf(obj);
  if (conditions.length === 0) return "no condition";
  return conditions
    .map(
      (c) => `${c.type}=${c.status}${c.reason ? ` (${c.reason}${c.message ? `: ${c.message}` : ""})` : ""}`,
    )
    .join(", ");
}

/** True when `outcome` is a reconcile of `obj` by its kind's controller (at any version of the kind). */
function reconciled(outcome: ReconcileOutcome, obj: KubeObject): boolean {
  return (
    outcome.kind === obj.kind &&
    groupOf(outcome.apiVersion) === groupOf(obj.apiVersion) &&
    outcome.key === keyOf(obj)
  );
}

/**
 * The failures of `primaries` that their conditions do not show: for each primary whose last
 * reconcile in `outcomes` (oldest first) failed while no condition says so, one line naming the
 * object, how many reconciles failed in a row, the last error and the object's conditions.
 */
export function unshownFailures(
  outcomes: readonly ReconcileOutcome[],
  primaries: readonly KubeObject[],
): string[] {
  const problems: string[] = [];
  for (const obj of primaries) {
    const mine = outcomes.filter((o) => reconciled(o, obj));
    const last = mine.at(-1);
    if (last?.result !== "error" || saysFailure(obj)) continue;
    const failedSince = mine.findLastIndex((o) => o.result !== "error") + 1;
    const streak = mine.length - failedSince;
    const times = streak === 1 ? "its last reconcile failed" : `its last ${streak} reconciles failed`;
    problems.push(
      `${obj.kind}/${obj.metadata.name}: ${times} (${last.error ?? "no message"}), yet its conditions say nothing of it: ${describeConditions(obj)}`,
    );
  }
  return problems;
}
