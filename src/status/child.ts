/**
 * A parent's condition from a child in trouble: what the child's own status says went wrong
 * ({@link childFailure}), or that the apiserver refused to write it ({@link childRefusal}). Both
 * return the reason and message only: the parent reports them on the dependent condition the
 * child stands for, at that condition's abnormal status.
 */
import { ForbiddenError, forbiddenCause } from "../client/index.ts";
import { type Clock, systemClock } from "../clock/index.ts";
import { conditionsOf, type LooseCondition } from "./internal/loose.ts";
import { type KStatusSubject, kstatus } from "./kstatus.ts";
import { isValidReason } from "./validation.ts";

/** Why a child is in trouble: a reason and a message for the parent's condition about it. */
export interface ChildTrouble {
  /** A valid condition reason: the child's own (`FailedCreate`, `BackoffLimitExceeded`), or the refusal's. */
  readonly reason: string;
  /** Names the child, then says what is wrong with it and, for a refusal, what fixes it. */
  readonly message: string;
}

/** Reason of {@link childRefusal} when a ResourceQuota refused the child. */
export const QUOTA_EXCEEDED_REASON = "QuotaExceeded";
/** Reason of {@link childRefusal} when an admission check (a webhook, a policy, PodSecurity, a LimitRange) refused the child. */
export const ADMISSION_DENIED_REASON = "AdmissionDenied";
/** Reason of {@link childRefusal} when the apiserver refused the child for a reason its message does not tell. */
export const CHILD_REFUSED_REASON = "ChildRefused";
/** Reason of {@link childFailure} when the child's own reason is not a valid condition reason. */
export const CHILD_FAILED_REASON = "ChildFailed";

/**
 * The conditions by which Kubernetes' controllers say that a child of theirs failed, even when
 * kstatus does not read them as `Failed`: a ReplicaSet's `ReplicaFailure` (pods it cannot
 * create), which the Deployment controller copies to its Deployment; a Job's `Failed` and its
 * interim `FailureTarget`; a Deployment that gave up (`Progressing=False`, `ProgressDeadlineExceeded`).
 */
const failureConditions: readonly ((c: LooseCondition) => boolean)[] = [
  (c) =>
    c.status === "True" && (c.type === "ReplicaFailure" || c.type === "Failed" || c.type === "FailureTarget"),
  (c) => c.type === "Progressing" && c.status === "False" && c.reason === "ProgressDeadlineExceeded",
];

/**
 * What a child's own status says went wrong, or `undefined` when it says nothing is: the first of
 * its failure conditions (`ReplicaFailure=True` of a Deployment or ReplicaSet, carried from the
 * ReplicaSet's `FailedCreate`; `Failed=True` or `FailureTarget=True` of a Job; a Deployment's
 * `ProgressDeadlineExceeded`), with that condition's reason and message; otherwise, when
 * {@link kstatus} reads the child as `Failed` (a `Stalled=True` condition, a crash-looping or
 * unschedulable Pod), kstatus's reason and message. The message starts with the child's kind and
 * name. `clock` only matters to a Pod's unschedulable window.
 *
 * @example
 * ```ts
 * const failure = deployment && childFailure(deployment);
 * if (failure) draft.set("Available", { status: "False", ...failure });
 * // Available=False FailedCreate: "Deployment web: pods "web-5d9f7c8b9-x2x7q" is forbidden: exceeded quota: ..."
 * ```
 */
export function childFailure(child: KStatusSubject, clock: Clock = systemClock): ChildTrouble | undefined {
  const conditions = conditionsOf(child);
  const failing = conditions.find((c) => failureConditions.some((is) => is(c)));
  if (failing) return trouble(child, textOf(failing.reason) || failing.type, textOf(failing.message));
  const judged = kstatus(child, clock);
  if (judged.status !== "Failed") return undefined;
  return trouble(child, judged.reason ?? CHILD_FAILED_REASON, judged.message);
}

/**
 * What a write of a child the apiserver refused says, or `undefined` when `err` is not such a
 * refusal: a 403 from a ResourceQuota (reason {@link QUOTA_EXCEEDED_REASON}), an admission check
 * ({@link ADMISSION_DENIED_REASON}) or a cause the message does not tell ({@link CHILD_REFUSED_REASON}),
 * with the apiserver's message (which names the child and, for a quota, the quota and its
 * figures) and what fixes it. Not a refusal: the operator's own RBAC denied (its fix is the
 * operator's, not the parent's), a namespace being deleted, and an invalid child (a 422, which
 * `ensureChild` throws as `InvalidChildError`, terminal). Only `err` itself is looked at, not what
 * it wraps. Such a refusal lasts until someone acts (a quota raised, a policy changed), which no
 * watch tells: report it and retry at an interval.
 *
 * @example
 * ```ts
 * try {
 *   await ensureChild(ctx, proxy, Deployment, desiredDeployment(proxy));
 * } catch (err) {
 *   const refused = childRefusal(err);
 *   if (!refused) throw err;
 *   draft.set("Available", { status: "False", ...refused }); // QuotaExceeded: deployments.apps "web" is forbidden: exceeded quota: ...
 *   return Action.requeueAfter(30_000);
 * }
 * ```
 */
export function childRefusal(err: unknown): ChildTrouble | undefined {
  if (!(err instanceof ForbiddenError)) return undefined;
  const reason = refusalReasons[err.deniedBy];
  if (!reason) return undefined;
  const { message } = err.status;
  return { reason, message: `${message}; ${forbiddenCause(message).fix}` };
}

const refusalReasons: Readonly<Record<ForbiddenError["deniedBy"], string | undefined>> = {
  quota: QUOTA_EXCEEDED_REASON,
  admission: ADMISSION_DENIED_REASON,
  unknown: CHILD_REFUSED_REASON,
  rbac: undefined,
  terminating: undefined,
};

function trouble(child: KStatusSubject, reason: string, detail: string): ChildTrouble {
  const name = `${child.kind ?? "child"} ${child.metadata.name ?? ""}`;
  return {
    reason: isValidReason(reason) ? reason : CHILD_FAILED_REASON,
    message: detail ? `${name}: ${detail}` : name,
  };
}

function textOf(value: unknown): string {
  return typeof value === "string" ? value : "";
}
