/**
 * @module status
 *
 * The conditions engine: `metav1.Condition` values with apimachinery's `meta.SetStatusCondition`
 * semantics ({@link setCondition}, {@link removeCondition}, {@link findCondition}, {@link isTrue}
 * ...), validation against the apiserver's rules, condition sets declared per kind
 * ({@link defineConditionSet}) that roll dependents up into a summary (`Ready`, `Succeeded` or
 * `Completed`) and keep kstatus's `Reconciling` / `Stalled` and `observedGeneration` consistent, and
 * {@link kstatus} to read any object the way Flux, Helm 4 and kpt do. A parent tells what is wrong
 * with a child on its own conditions: {@link childFailure} reads the child's failure (a Deployment's
 * `ReplicaFailure`, a Job's `Failed`, anything kstatus reads as `Failed`), {@link childRefusal} a
 * write of it the apiserver refused (a quota, an admission check).
 *
 * The engine is pure: it computes the next status and reports whether it changed and which
 * conditions transitioned. {@link writeStatus} is the call a reconciler makes: it computes the
 * conditions from the freshly read object, sends the status to `/status` only when it changed
 * (recomputing from a fresh read on conflict, with {@link updateStatus}), and turns the transitions
 * it wrote into events and metrics ({@link recordTransitions}). Status keeps no history, and
 * conditions of other controllers are passed through untouched. Time comes from an injected
 * `Clock`; every time is RFC 3339 at second precision, as the apiserver stores it.
 *
 * @example
 * ```ts
 * const Ready = defineConditionSet({
 *   summary: "Ready",
 *   dependents: { Available: "normal-true", Degraded: "normal-false" },
 * });
 * // in the reconciler: only writes when something changed; transitions become events, not status
 * const { status } = await writeStatus(ctx, Kind, obj, Ready, (draft) => {
 *   draft.set("Available", { status: "True", reason: "MinimumReplicasAvailable", message: "3/3 ready" });
 *   draft.set("Degraded", { status: "False", reason: "AllReplicasHealthy" });
 *   return {}; // the kind's other status fields
 * });
 * kstatus({ ...obj, status }).status; // "Current": Ready=True, no Reconciling
 * ```
 */
export {
  ADMISSION_DENIED_REASON,
  CHILD_FAILED_REASON,
  CHILD_REFUSED_REASON,
  type ChildTrouble,
  childFailure,
  childRefusal,
  QUOTA_EXCEEDED_REASON,
} from "./child.ts";
export {
  type ConditionSet,
  type ConditionSetOptions,
  type DependentCondition,
  defineConditionSet,
  type PhaseFunction,
  type StatusSubject,
  type StoredStatus,
  type SummaryType,
} from "./condition-set.ts";
export {
  type Condition,
  type ConditionInput,
  type ConditionStatus,
  findCondition,
  isFalse,
  isPresentAndEqual,
  isTrue,
  isUnknown,
  removeCondition,
  setCondition,
} from "./conditions.ts";
export type { Transition } from "./diff.ts";
export type { ConditionsStatus, StallOptions, StatusDraft, StatusUpdate } from "./draft.ts";
export { InvalidConditionError, InvalidStatusUpdateError, StatusSubresourceMissingError } from "./errors.ts";
export {
  type KStatus,
  type KStatusResult,
  type KStatusSubject,
  kstatus,
  LATEST_GENERATION_NOT_OBSERVED,
  PROGRESSING_WITH_RETRY,
  RECONCILING,
  STALLED,
} from "./kstatus.ts";
export {
  ALL_NORMAL_REASON,
  type ConditionReport,
  type DependentState,
  defaultRollUp,
  type Health,
  NOT_REPORTED_REASON,
  type Polarity,
  type RollUp,
} from "./rollup.ts";
export {
  CONDITION_REMOVED_REASON,
  type NotedTransition,
  parseTransitionNote,
  recordTransitions,
  type TransitionEvent,
  type TransitionEventOptions,
  type TransitionMetrics,
  type TransitionPolicy,
  type TransitionRecorder,
  type TransitionReporting,
  transitionEvents,
} from "./transition-events.ts";
export {
  type ComputeStatus,
  DEFAULT_STATUS_WRITE_ATTEMPTS,
  type StatusClient,
  type StatusOf,
  type StatusWriteMethod,
  type StatusWriteResult,
  type UpdateStatusOptions,
  updateStatus,
} from "./update-status.ts";
export {
  MAX_MESSAGE_LENGTH,
  MAX_REASON_LENGTH,
  MAX_TYPE_LENGTH,
  TRUNCATION_MARKER,
  truncateMessage,
  validateConditionType,
  validateReason,
} from "./validation.ts";
export {
  type DescribeStatus,
  type StatusContext,
  type StatusFields,
  type StatusWrite,
  type WriteStatusOptions,
  writeStatus,
} from "./write-status.ts";
