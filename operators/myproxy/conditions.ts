/**
 * The conditions each kind reports, their reasons, and how they roll up into the summary `Ready`.
 * A MyProxy is Ready only when its pods are available and the rollout of the current configuration
 * is complete; a ProxyRoute is Ready exactly when it is Accepted.
 */
import { defineConditionSet } from "kubeloop";
import {
  ADMISSION_DENIED_REASON,
  CHILD_REFUSED_REASON,
  type ConditionReport,
  type DependentState,
  NOT_REPORTED_REASON,
  QUOTA_EXCEEDED_REASON,
} from "kubeloop/status";

/** Reasons of a MyProxy's `Available` and `Progressing` conditions (and of its `Ready`). */
export const ProxyReason = {
  /** The Deployment does not exist (yet). */
  DeploymentNotFound: "DeploymentNotFound",
  /** The Deployment has not reported this condition yet. */
  DeploymentNotObserved: "DeploymentNotObserved",
  /** Enough pods are available (the Deployment's own reason). */
  MinimumReplicasAvailable: "MinimumReplicasAvailable",
  /** Too few pods are available (the Deployment's own reason). */
  MinimumReplicasUnavailable: "MinimumReplicasUnavailable",
  /** A new pod template or replica count is being rolled out. */
  RollingOut: "RollingOut",
  /** Every desired pod runs the current pod template and is available. */
  RolloutComplete: "RolloutComplete",
  /** The Deployment gave up progressing (the Deployment's own reason). */
  ProgressDeadlineExceeded: "ProgressDeadlineExceeded",
  /**
   * The Deployment's ReplicaSet cannot create pods (the reason of the Deployment's
   * `ReplicaFailure`, carried up with its message): a quota on pods, a pod the apiserver refuses.
   */
  FailedCreate: "FailedCreate",
  /** A ResourceQuota refused the ConfigMap or the Deployment; the message names the quota. */
  QuotaExceeded: QUOTA_EXCEEDED_REASON,
  /** An admission check (a webhook, a policy) refused the ConfigMap or the Deployment. */
  AdmissionDenied: ADMISSION_DENIED_REASON,
  /** The apiserver refused the ConfigMap or the Deployment for a reason its message does not tell. */
  ChildRefused: CHILD_REFUSED_REASON,
  /**
   * A child's name is taken by an object the MyProxy does not control (a user's, or another
   * owner's); it is left untouched and the MyProxy waits until it is deleted or renamed.
   */
  ChildConflict: "ChildConflict",
  /** `RoutesAdmitted`: every route that qualifies is in the configuration. */
  AllRoutesAdmitted: "AllRoutesAdmitted",
  /**
   * `RoutesAdmitted`: routes that qualify were left out because the configuration reached its
   * budget (the youngest ones, which report `ConfigurationFull` themselves).
   */
  ConfigurationFull: "ConfigurationFull",
  /** Summary: available, and the current configuration is rolled out. */
  Serving: "Serving",
} as const;

/** Reasons of a ProxyRoute's `Accepted` condition (and of its `Ready`). */
export const RouteReason = {
  /** In the configuration of its MyProxy. */
  Accepted: "Accepted",
  /**
   * Accepted by the routing rules, but not yet in the configuration the MyProxy wrote (status
   * `Unknown`): `Accepted=True` means nginx is given the route, not only that it may be.
   */
  ConfigurationPending: "ConfigurationPending",
  /** The referenced MyProxy does not exist in the route's namespace. */
  ProxyNotFound: "ProxyNotFound",
  /** The backend Service does not exist, or has no such port. */
  BackendNotFound: "BackendNotFound",
  /** An older route of the same MyProxy serves the same host and path. */
  Conflict: "Conflict",
  /**
   * The MyProxy's configuration reached its budget with older routes (it must fit in one ConfigMap):
   * deleting routes, or moving some to another MyProxy, makes room.
   */
  ConfigurationFull: "ConfigurationFull",
  /**
   * The spec breaks the ProxyRoute schema (an old or hand-edited CRD let it in): none of it reaches
   * the nginx configuration.
   */
  InvalidSpec: "InvalidSpec",
} as const;

type ProxyDependent = "Available" | "Progressing" | "RoutesAdmitted";

/**
 * MyProxy's roll-up: `False` when the pods are unavailable or the rollout failed; `Unknown` while
 * something is not reported yet or a rollout is under way (as Flux reports `Ready` while
 * reconciling); `True` only once available with the rollout of the current configuration complete.
 * `RoutesAdmitted` is left out: the MyProxy serves the routes that fit, as it serves the valid ones
 * when others are invalid, and the routes left out report it on their own status.
 */
export function proxyRollUp(all: readonly DependentState<ProxyDependent>[]): ConditionReport {
  const dependents = all.filter((d) => d.type !== "RoutesAdmitted");
  const abnormal = dependents.find((d) => d.health === "abnormal")?.condition;
  if (abnormal) return { status: "False", reason: abnormal.reason, message: abnormal.message };
  const unknown = dependents.find((d) => d.health === "unknown");
  if (unknown) return { status: "Unknown", ...reasonOf(unknown) };
  const available = dependents.find((d) => d.type === "Available")?.condition;
  const progressing = dependents.find((d) => d.type === "Progressing")?.condition;
  if (progressing && progressing.reason !== ProxyReason.RolloutComplete)
    return { status: "Unknown", reason: progressing.reason, message: progressing.message };
  return {
    status: "True",
    reason: ProxyReason.Serving,
    message: [available?.message, progressing?.message].filter(Boolean).join("; "),
  };
}

/** A ProxyRoute's `Ready` mirrors `Accepted`. */
export function routeRollUp(dependents: readonly DependentState<"Accepted">[]): ConditionReport {
  const accepted = dependents[0];
  if (!accepted?.condition) return { status: "Unknown", ...reasonOf(accepted) };
  const { status, reason, message } = accepted.condition;
  return { status, reason, message };
}

function reasonOf(dependent: DependentState | undefined): { reason: string; message: string } {
  if (dependent?.condition)
    return { reason: dependent.condition.reason, message: dependent.condition.message };
  return {
    reason: NOT_REPORTED_REASON,
    message: `${dependent?.type ?? "a condition"} has not been reported`,
  };
}

/**
 * MyProxy's conditions: `Available` and `Progressing`, summarised by `Ready` ({@link proxyRollUp}),
 * and `RoutesAdmitted`, which says whether every route that qualifies fits in the configuration.
 */
export const MyProxyConditions = defineConditionSet({
  summary: "Ready",
  dependents: { Available: "normal-true", Progressing: "normal-true", RoutesAdmitted: "normal-true" },
  rollUp: proxyRollUp,
});

/** ProxyRoute's conditions: `Accepted`, mirrored by `Ready` ({@link routeRollUp}). */
export const ProxyRouteConditions = defineConditionSet({
  summary: "Ready",
  dependents: { Accepted: "normal-true" },
  rollUp: routeRollUp,
});
