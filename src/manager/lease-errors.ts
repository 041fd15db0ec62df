/**
 * How a manager reports a Lease call of its leader election or shard coordinator that failed
 * (each is retried every retry period): counted in `kubeloop_lease_errors_total{phase,code}`, and
 * logged — as an error naming the fix when the apiserver refused the call for a reason retrying
 * cannot cure (an invalid Lease, a missing permission), so that a replica that cannot take part
 * does not retry silently forever.
 */
import type { Logger } from "pino";
import { ApiError, NotFoundError, UnreachableError } from "../client/index.ts";
import type { ElectionPhase } from "../election/index.ts";
import type { ManagerMetrics } from "./metrics.ts";

/** Where a Lease call failed: an election phase, or the coordinator's list of the Leases. */
export type LeasePhase = Exclude<ElectionPhase, "callback"> | "list";

/** The `code` label of a failed call: the HTTP status, `timeout`, `unreachable` or `other`. */
export function leaseErrorCode(err: unknown): string {
  if (err instanceof ApiError) return String(err.statusCode);
  if (err instanceof UnreachableError) return "unreachable";
  if (err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError")) return "timeout";
  return "other";
}

/** True for a refusal retrying does not cure: a 4xx other than 404, 408, 409 and 429. */
export function refusedForGood(err: unknown): boolean {
  if (!(err instanceof ApiError)) return false;
  const code = err.statusCode;
  return code >= 400 && code < 500 && ![404, 408, 409, 429].includes(code);
}

/**
 * Counts the failed Lease call `err` of `phase` in `kubeloop_lease_errors_total` and logs it;
 * `what` names the mechanism in the log (`leader election`, `sharding`).
 */
export function reportLeaseError(
  logger: Logger,
  metrics: Pick<ManagerMetrics, "leaseErrors">,
  err: unknown,
  phase: LeasePhase,
  what: string,
): void {
  metrics.leaseErrors.inc({ phase, code: leaseErrorCode(err) });
  const namespace = missingNamespaceOf(err);
  if (namespace !== undefined) {
    logger.error(
      { err, phase },
      `${what}: the namespace ${namespace} of its Lease does not exist, so this replica is never elected and reconciles nothing; ` +
        `create it (kubectl create namespace ${namespace}), set POD_NAMESPACE to a namespace that exists, ` +
        "or, for one replica (e.g. run locally), turn leader election off: node dist/main.js --leader-elect=false, or kubeloop run",
    );
  } else if (refusedForGood(err)) {
    logger.error(
      { err, phase },
      `${what}: the apiserver refused a Lease call (${phase}); retrying cannot help until its cause is fixed: ` +
        "a 403 means the operator's RBAC lacks a verb on leases (regenerate it with kubeloop generate), a 422 that the apiserver refuses the Lease itself (see the error's causes)",
    );
  } else {
    const next = phase === "release" ? "given up (one try, as client-go)" : "retrying";
    logger.warn({ err, phase }, `${what}: a Lease call failed (${phase}); ${next}`);
  }
}

/**
 * The namespace a Lease call was refused for because it does not exist (404 `namespaces "x" not
 * found`, as the apiserver answers a create in a missing namespace), else undefined.
 */
function missingNamespaceOf(err: unknown): string | undefined {
  if (!(err instanceof NotFoundError) || err.status.details?.kind !== "namespaces") return undefined;
  return err.status.details.name;
}
