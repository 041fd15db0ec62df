/**
 * Which built-in kinds kstatus judges by a rule of their own (`cli-utils` v0.37.2
 * `GetLegacyConditionsFn`), and the rules of the kinds that are not workload controllers': Pod,
 * PersistentVolumeClaim, Service, Job, PodDisruptionBudget, CustomResourceDefinition, and the
 * kinds that are always ready. Reasons and messages are cli-utils' own.
 */
import type { Clock } from "../../clock/index.ts";
import type { KStatusResult, KStatusSubject } from "../kstatus.ts";
import { type BuiltinRule, current, failed, fromCondition, inProgress } from "./kstatus-results.ts";
import {
  daemonSetStatus,
  deploymentStatus,
  replicaSetStatus,
  statefulSetStatus,
} from "./kstatus-workloads.ts";
import { conditionsOf, conditionWithStatus, fieldAt, intField, isRecord, stringField } from "./loose.ts";

/** How long a Pod may stay unschedulable before kstatus calls it Failed (`cli-utils` `ScheduleWindow`). */
export const SCHEDULE_WINDOW_MS = 15_000;

const alwaysReady: BuiltinRule = () => current("Resource is always ready");

/** The rules by `<group>/<kind>`, or `<kind>` for the core group, as cli-utils keys them. */
const rules: Readonly<Record<string, BuiltinRule>> = {
  Service: serviceStatus,
  Pod: podStatus,
  Secret: alwaysReady,
  PersistentVolumeClaim: pvcStatus,
  "apps/StatefulSet": statefulSetStatus,
  "apps/DaemonSet": daemonSetStatus,
  "extensions/DaemonSet": daemonSetStatus,
  "apps/Deployment": deploymentStatus,
  "extensions/Deployment": deploymentStatus,
  "apps/ReplicaSet": replicaSetStatus,
  "extensions/ReplicaSet": replicaSetStatus,
  "policy/PodDisruptionBudget": () => current("AllowedDisruptions has been computed."),
  "batch/CronJob": alwaysReady,
  ConfigMap: alwaysReady,
  "batch/Job": jobStatus,
  "apiextensions.k8s.io/CustomResourceDefinition": crdStatus,
};

/**
 * The rule of `obj`'s kind, or `undefined` for a kind without one (custom resources) and for an
 * object without `apiVersion`, whose group is unknown.
 */
export function builtinRule(obj: KStatusSubject): BuiltinRule | undefined {
  if (!obj.apiVersion || !obj.kind) return undefined;
  const [group, version, ...rest] = obj.apiVersion.split("/");
  if (rest.length > 0) return undefined;
  const key = version === undefined ? obj.kind : `${group}/${obj.kind}`;
  return Object.hasOwn(rules, key) ? rules[key] : undefined;
}

function serviceStatus(obj: KStatusSubject): KStatusResult {
  const loadBalancer = stringField(obj, "spec.type", "ClusterIP") === "LoadBalancer";
  if (loadBalancer && stringField(obj, "spec.clusterIP", "") === "")
    return inProgress("NoIPAssigned", "ClusterIP not set. Service type: LoadBalancer");
  return current("Service is ready");
}

function pvcStatus(obj: KStatusSubject): KStatusResult {
  const phase = stringField(obj, "status.phase", "unknown");
  if (phase !== "Bound") return inProgress("NotBound", `PVC is not Bound. phase: ${phase}`);
  return current("PVC is Bound");
}

/**
 * A Pod: Current once it completed (either way) or runs Ready; Failed while a container of a
 * running Pod crash-loops, or when it stays unschedulable past {@link SCHEDULE_WINDOW_MS}.
 */
function podStatus(obj: KStatusSubject, clock: Clock): KStatusResult {
  const phase = stringField(obj, "status.phase", "");
  switch (phase) {
    case "Succeeded":
      return current("Pod has completed successfully");
    case "Failed":
      return current("Pod has completed, but not successfully");
    case "Running":
      return runningPod(obj);
    case "Pending":
      return pendingPod(obj, clock);
    case "":
      return inProgress("PodNotObserved", "Pod phase not available");
    default:
      // cli-utils returns an error here, which its pollers show as Unknown.
      return inProgress("UnknownPhase", `unknown phase ${phase}`);
  }
}

function runningPod(obj: KStatusSubject): KStatusResult {
  if (conditionWithStatus(conditionsOf(obj), "Ready", "True")) return current("Pod is Ready");
  const crashLooping = crashLoopingContainers(obj);
  if (crashLooping.length > 0)
    return failed("ContainerCrashLooping", `Containers in CrashLoop state: ${crashLooping.join(",")}`);
  return inProgress("PodRunningNotReady", "Pod is running but is not Ready");
}

function crashLoopingContainers(obj: KStatusSubject): string[] {
  const statuses = fieldAt(obj, "status.containerStatuses");
  if (!Array.isArray(statuses)) return [];
  return statuses
    .filter(isRecord)
    .filter((s) => fieldAt(s, "state.waiting.reason") === "CrashLoopBackOff")
    .map((s) => s.name)
    .filter((name): name is string => typeof name === "string");
}

function pendingPod(obj: KStatusSubject, clock: Clock): KStatusResult {
  const scheduled = conditionWithStatus(conditionsOf(obj), "PodScheduled", "False");
  if (scheduled?.reason !== "Unschedulable") return inProgress("PodPending", "Pod is in the Pending phase");
  const created = Date.parse(obj.metadata.creationTimestamp ?? "");
  if (clock.now() - SCHEDULE_WINDOW_MS < created)
    return inProgress("PodNotScheduled", "Pod has not been scheduled");
  return failed("PodUnschedulable", "Pod could not be scheduled");
}

/**
 * A Job: Current once complete, Failed once failed, InProgress until it starts, then Current while
 * it runs (kstatus means "reconciled", not "finished").
 */
function jobStatus(obj: KStatusSubject): KStatusResult {
  const completions = intField(obj, "spec.completions", intField(obj, "spec.parallelism", 1));
  const succeeded = intField(obj, "status.succeeded", 0);
  const failures = intField(obj, "status.failed", 0);
  for (const c of conditionsOf(obj)) {
    if (c.status !== "True") continue;
    if (c.type === "Complete") return current(`Job Completed. succeeded: ${succeeded}/${completions}`);
    if (c.type === "Failed") return failed("JobFailed", `Job Failed. failed: ${failures}/${completions}`);
  }
  if (stringField(obj, "status.startTime", "") === "") return inProgress("JobNotStarted", "Job not started");
  const active = intField(obj, "status.active", 0);
  return current(`Job in progress. success:${succeeded}, active: ${active}, failed: ${failures}`);
}

/** A CRD: Current once Established, Failed when its names are refused or establishing failed. */
function crdStatus(obj: KStatusSubject): KStatusResult {
  for (const c of conditionsOf(obj)) {
    if (c.type === "NamesAccepted" && c.status === "False") return fromCondition("Failed", c);
    if (c.type !== "Established") continue;
    if (c.status === "False" && c.reason !== "Installing") return fromCondition("Failed", c);
    if (c.status === "True") return current("CRD is established");
  }
  return inProgress("Installing", "Install in progress");
}
