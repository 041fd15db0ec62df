/**
 * A MyProxy's status, derived only from what the controller observes (its Deployment, its pods, the
 * accepted routes): pure, so that wiping the status and reconciling writes the same thing back.
 */
import type { DeploymentObject, PodObject } from "kubeloop";
import type { DeploymentCondition } from "kubeloop/api/apps/v1";
import { type ChildTrouble, type ConditionReport, type ConditionStatus, childFailure } from "kubeloop/status";
import { ProxyReason, RouteReason } from "./conditions.ts";
import { CONFIG_BUDGET_BYTES } from "./nginx.ts";

/** What one reconcile observed of a MyProxy's world. */
export interface ProxyObservation {
  /** The Deployment the MyProxy controls, as cached; undefined when there is none. */
  deployment: DeploymentObject | undefined;
  /**
   * Whether the cached Deployment already carries the desired spec (`ensureChild` answered
   * `unchanged`). When false the controller just wrote it, so its status speaks of an older spec.
   */
  deploymentUpToDate: boolean;
  /** The pods selected by the Deployment's selector. */
  pods: readonly PodObject[];
  /** How many routes are in the configuration. */
  acceptedRoutes: number;
  /** How many routes that qualify were left out because the configuration is full. */
  routesLeftOut: number;
  /** sha256 of the configuration. */
  configHash: string;
  /** The configuration's size in bytes. */
  configBytes: number;
  /** Why the children could not be converged (a name taken by an object it does not control), if so. */
  blocked?: string;
  /** What the apiserver said when it refused to write the ConfigMap or the Deployment (a quota, an admission check), if it did. */
  refused?: ChildTrouble;
}

/** The status fields besides conditions, and the reports of the two dependent conditions. */
export interface ProxyStatusReport {
  fields: {
    podNames: string[];
    replicas: number;
    readyReplicas: number;
    acceptedRoutes: number;
    configHash: string;
  };
  available: ConditionReport;
  progressing: ConditionReport;
  routesAdmitted: ConditionReport;
}

/** Derives the status of a MyProxy from an observation. */
export function proxyStatus(observed: ProxyObservation): ProxyStatusReport {
  const status = observed.deployment?.status;
  return {
    fields: {
      podNames: podNames(observed.pods),
      replicas: status?.replicas ?? 0,
      readyReplicas: status?.readyReplicas ?? 0,
      acceptedRoutes: observed.acceptedRoutes,
      configHash: observed.configHash,
    },
    available: availableReport(observed.deployment),
    progressing:
      childrenNotWritten(observed) ?? progressingReport(observed.deployment, observed.deploymentUpToDate),
    routesAdmitted: routesAdmittedReport(observed),
  };
}

/** `Progressing` False when a child could not be written: its name is taken, or the apiserver refused it. */
function childrenNotWritten({ blocked, refused }: ProxyObservation): ConditionReport | undefined {
  if (blocked) return { status: "False", reason: ProxyReason.ChildConflict, message: blocked };
  return refused && { status: "False", ...refused };
}

/**
 * `RoutesAdmitted`: True when every route that qualifies is in the configuration; False with
 * `ConfigurationFull`, counting the routes left out, when the budget was reached.
 */
export function routesAdmittedReport(
  observed: Pick<ProxyObservation, "acceptedRoutes" | "routesLeftOut" | "configBytes">,
): ConditionReport {
  const size = `${kib(observed.configBytes)} of ${kib(CONFIG_BUDGET_BYTES)}`;
  if (observed.routesLeftOut === 0) {
    const message = `all ${observed.acceptedRoutes} routes that qualify are in the configuration (${size})`;
    return { status: "True", reason: ProxyReason.AllRoutesAdmitted, message };
  }
  const message =
    `${observed.routesLeftOut} routes did not fit in the configuration (${size}, routes admitted oldest ` +
    `first); they report Accepted=False with reason ${RouteReason.ConfigurationFull}`;
  return { status: "False", reason: ProxyReason.ConfigurationFull, message };
}

/** Bytes as KiB, rounded up, so that a configuration over its budget never reads as within it. */
function kib(bytes: number): string {
  return `${Math.ceil(bytes / 1024)} KiB`;
}

/** Names of the pods that are neither terminating nor finished, sorted. */
export function podNames(pods: readonly PodObject[]): string[] {
  return pods
    .filter(
      (p) => !p.metadata.deletionTimestamp && p.status?.phase !== "Succeeded" && p.status?.phase !== "Failed",
    )
    .map((p) => p.metadata.name ?? "")
    .sort();
}

/**
 * `Available`: the Deployment's own `Available` condition, with a count of ready pods; while it is
 * False and the Deployment reports a failure ({@link childFailure}: its `ReplicaFailure`, carried
 * from the ReplicaSet that cannot create pods), that failure's reason and message, which say why.
 */
export function availableReport(deployment: DeploymentObject | undefined): ConditionReport {
  if (!deployment) return notFound();
  const condition = deploymentCondition(deployment, "Available");
  if (!condition) return notObserved(deployment, "availability");
  const status = statusOf(condition);
  const ready = `${deployment.status?.readyReplicas ?? 0}/${desiredReplicas(deployment)} pods ready`;
  const failure = status === "False" ? childFailure(deployment) : undefined;
  if (failure) return { status, reason: failure.reason, message: `${ready}; ${failure.message}` };
  const reason =
    condition.reason ??
    (status === "True" ? ProxyReason.MinimumReplicasAvailable : ProxyReason.MinimumReplicasUnavailable);
  return { status, reason, message: ready };
}

/**
 * `Progressing`: True with `RolloutComplete` once every desired pod runs the current template and is
 * available and no old or surplus pod is left; True with `RollingOut` before that; False with the
 * Deployment's reason and message when it reports a failure ({@link childFailure}): its
 * ReplicaSet cannot create pods (`ReplicaFailure`, e.g. `FailedCreate`), or it gave up
 * (`ProgressDeadlineExceeded`).
 */
export function progressingReport(
  deployment: DeploymentObject | undefined,
  upToDate: boolean,
): ConditionReport {
  if (!deployment) return notFound();
  const name = deployment.metadata.name;
  const observed = deployment.status?.observedGeneration ?? 0;
  if (!upToDate || observed < (deployment.metadata.generation ?? 0))
    return rollingOut(`Deployment ${name} has not observed its latest spec yet`);
  const failure = childFailure(deployment);
  if (failure) return { status: "False", ...failure };
  const pending = pendingRollout(deployment);
  if (pending) return rollingOut(pending);
  const desired = desiredReplicas(deployment);
  return {
    status: "True",
    reason: ProxyReason.RolloutComplete,
    message: `${desired}/${desired} pods run the current configuration`,
  };
}

/** What the rollout still waits for, or undefined when it is complete. */
function pendingRollout(deployment: DeploymentObject): string | undefined {
  const desired = desiredReplicas(deployment);
  const { updatedReplicas = 0, replicas = 0, availableReplicas = 0 } = deployment.status ?? {};
  if (updatedReplicas < desired) return `${updatedReplicas}/${desired} pods run the current configuration`;
  if (replicas > desired) return `${replicas - desired} old or surplus pods are being removed`;
  if (availableReplicas < desired) return `${availableReplicas}/${desired} pods are available`;
  return undefined;
}

function desiredReplicas(deployment: DeploymentObject): number {
  return deployment.spec?.replicas ?? 1;
}

function deploymentCondition(deployment: DeploymentObject, type: string): DeploymentCondition | undefined {
  return deployment.status?.conditions?.find((c) => c.type === type);
}

/** A Deployment condition's status (a string in the schema); anything but True or False reads as Unknown. */
function statusOf(condition: DeploymentCondition): ConditionStatus {
  return condition.status === "True" || condition.status === "False" ? condition.status : "Unknown";
}

function rollingOut(message: string): ConditionReport {
  return { status: "True", reason: ProxyReason.RollingOut, message };
}

function notFound(): ConditionReport {
  return {
    status: "Unknown",
    reason: ProxyReason.DeploymentNotFound,
    message: "the Deployment does not exist yet",
  };
}

function notObserved(deployment: DeploymentObject, what: string): ConditionReport {
  return {
    status: "Unknown",
    reason: ProxyReason.DeploymentNotObserved,
    message: `Deployment ${deployment.metadata.name} has not reported its ${what} yet`,
  };
}
