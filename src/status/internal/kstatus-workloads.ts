/**
 * kstatus of the workload controllers' kinds (Deployment, StatefulSet, DaemonSet, ReplicaSet),
 * rule for rule, reason for reason and message for message as `cli-utils` v0.37.2
 * `pkg/kstatus/status/core.go` computes them: mostly replica counts checked in a fixed order,
 * the first shortfall deciding.
 */
import type { KStatusResult, KStatusSubject } from "../kstatus.ts";
import { current, extraPods, failed, inProgress, shortfall } from "./kstatus-results.ts";
import {
  conditionsOf,
  conditionWithStatus,
  fieldAt,
  intField,
  type LooseCondition,
  stringField,
} from "./loose.ts";

const LESS_READY = "LessReady";
const LESS_AVAILABLE = "LessAvailable";
const LESS_UPDATED = "LessUpdated";
const LESS_REPLICAS = "LessReplicas";
const LESS_CURRENT = "LessCurrent";
const DEADLINE_EXCEEDED = "ProgressDeadlineExceeded";
/** `math.MaxInt32`: the Deployment controller's "no progress deadline", which also stands for unset. */
const NO_PROGRESS_DEADLINE = 2 ** 31 - 1;

/**
 * A Deployment: Failed once its progress deadline passed; otherwise InProgress until it has as
 * many replicas as asked, all updated, available and ready, and reports its new ReplicaSet
 * available and itself Available.
 */
export function deploymentStatus(obj: KStatusSubject): KStatusResult {
  const conditions = conditionsOf(obj);
  if (conditions.some((c) => c.type === "Progressing" && c.reason === DEADLINE_EXCEEDED))
    return failed(DEADLINE_EXCEEDED, "Progress deadline exceeded");
  const wanted = intField(obj, "spec.replicas", 1);
  const replicas = intField(obj, "status.replicas", 0);
  const updated = intField(obj, "status.updatedReplicas", 0);
  return (
    shortfall("Replicas", LESS_REPLICAS, replicas, wanted) ??
    shortfall("Updated", LESS_UPDATED, updated, wanted) ??
    extraPods(replicas, wanted) ??
    shortfall("Available", LESS_AVAILABLE, intField(obj, "status.availableReplicas", 0), updated) ??
    shortfall("Ready", LESS_READY, intField(obj, "status.readyReplicas", 0), wanted) ??
    deploymentUnavailable(obj, conditions) ??
    current(`Deployment is available. Replicas: ${replicas}`)
  );
}

function deploymentUnavailable(
  obj: KStatusSubject,
  conditions: readonly LooseCondition[],
): KStatusResult | undefined {
  const noDeadline =
    intField(obj, "spec.progressDeadlineSeconds", NO_PROGRESS_DEADLINE) === NO_PROGRESS_DEADLINE;
  const newReplicaSetAvailable = conditions.some(
    (c) => c.type === "Progressing" && c.status === "True" && c.reason === "NewReplicaSetAvailable",
  );
  if (!noDeadline && !newReplicaSetAvailable)
    return inProgress("ReplicaSetNotAvailable", "ReplicaSet not Available");
  if (!conditionWithStatus(conditions, "Available", "True"))
    return inProgress("DeploymentNotAvailable", "Deployment not Available");
  return undefined;
}

/**
 * A StatefulSet (which never sets conditions): Current under the OnDelete strategy; otherwise
 * InProgress until it has as many replicas as asked, all ready, then either the partition's share
 * updated or all replicas current at the update revision.
 */
export function statefulSetStatus(obj: KStatusSubject): KStatusResult {
  if (stringField(obj, "spec.updateStrategy.type", "") === "OnDelete")
    return current("StatefulSet is using the ondelete update strategy");
  const wanted = intField(obj, "spec.replicas", 1);
  const replicas = intField(obj, "status.replicas", 0);
  return (
    shortfall("Replicas", LESS_REPLICAS, replicas, wanted) ??
    shortfall("Ready", LESS_READY, intField(obj, "status.readyReplicas", 0), wanted) ??
    extraPods(replicas, wanted) ??
    partitionRollout(obj, wanted) ??
    shortfall("current", LESS_CURRENT, intField(obj, "status.currentReplicas", 0), wanted) ??
    revisionMismatch(obj) ??
    current(`All replicas scheduled as expected. Replicas: ${replicas}`)
  );
}

/** With a partition, the ordinals at or above it updated decide, and the revisions are not compared. */
function partitionRollout(obj: KStatusSubject, wanted: number): KStatusResult | undefined {
  const partition = intField(obj, "spec.updateStrategy.rollingUpdate.partition", -1);
  if (partition === -1) return undefined;
  const updated = intField(obj, "status.updatedReplicas", 0);
  return (
    shortfall("updated", "PartitionRollout", updated, wanted - partition) ??
    current(`Partition rollout complete. updated: ${updated}`)
  );
}

function revisionMismatch(obj: KStatusSubject): KStatusResult | undefined {
  const currentRevision = stringField(obj, "status.currentRevision", "");
  if (currentRevision === stringField(obj, "status.updateRevision", "")) return undefined;
  return inProgress("RevisionMismatch", "Waiting for updated revision to match current");
}

/**
 * A DaemonSet: InProgress until its controller has observed it (generation and observed
 * generation both set) and every node that should run its Pod runs an updated, available, ready one.
 */
export function daemonSetStatus(obj: KStatusSubject): KStatusResult {
  const unobserved = generationUnset(obj);
  if (unobserved) return unobserved;
  const desired = intField(obj, "status.desiredNumberScheduled", -1);
  if (desired === -1) return inProgress("NoDesiredNumber", "Missing .status.desiredNumberScheduled");
  return (
    shortfall("Current", LESS_CURRENT, intField(obj, "status.currentNumberScheduled", 0), desired) ??
    shortfall("Updated", LESS_UPDATED, intField(obj, "status.updatedNumberScheduled", 0), desired) ??
    shortfall("Available", LESS_AVAILABLE, intField(obj, "status.numberAvailable", 0), desired) ??
    shortfall("Ready", LESS_READY, intField(obj, "status.numberReady", 0), desired) ??
    current(`All replicas scheduled as expected. Replicas: ${desired}`)
  );
}

/** `cli-utils` `checkGenerationSet`: stricter than the generic check, which skips absent fields. */
function generationUnset(obj: KStatusSubject): KStatusResult | undefined {
  if (!Number.isInteger(obj.metadata.generation))
    return inProgress("NoGeneration", `${obj.kind} metadata.generation not found`);
  if (!Number.isInteger(fieldAt(obj, "status.observedGeneration")))
    return inProgress("NoObservedGeneration", `${obj.kind} status.observedGeneration not found`);
  return undefined;
}

/**
 * A ReplicaSet: InProgress while a ReplicaFailure condition is True, or until it has as many
 * labelled, available and ready replicas as asked and no extra ones.
 */
export function replicaSetStatus(obj: KStatusSubject): KStatusResult {
  if (conditionWithStatus(conditionsOf(obj), "ReplicaFailure", "True"))
    return inProgress("ReplicaFailure", "Replica Failure condition. Check Pods");
  const wanted = intField(obj, "spec.replicas", 1);
  const replicas = intField(obj, "status.replicas", 0);
  return (
    shortfall("Labelled", "LessLabelled", intField(obj, "status.fullyLabeledReplicas", 0), wanted) ??
    shortfall("Available", LESS_AVAILABLE, intField(obj, "status.availableReplicas", 0), wanted) ??
    shortfall("Ready", LESS_READY, intField(obj, "status.readyReplicas", 0), wanted) ??
    extraPods(replicas, wanted) ??
    current(`ReplicaSet is available. Replicas: ${replicas}`)
  );
}
