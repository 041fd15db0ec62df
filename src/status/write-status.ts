/**
 * The status write a reconciler makes, in one call: a condition set's draft begun from the freshly
 * read object, the kind's other status fields beside it, a write only when something changed
 * (recomputed on conflict, by {@link updateStatus}), and the transitions that were written turned
 * into events and metrics (by {@link recordTransitions}).
 */
import type { KubeObject, ResourceType } from "../api/index.ts";
import type { Clock } from "../clock/index.ts";
import type { ConditionSet, StatusSubject } from "./condition-set.ts";
import type { ConditionsStatus, StatusDraft, StatusUpdate } from "./draft.ts";
import {
  recordTransitions,
  type TransitionEventOptions,
  type TransitionReporting,
} from "./transition-events.ts";
import {
  type StatusClient,
  type StatusOf,
  type StatusWriteResult,
  type UpdateStatusOptions,
  updateStatus,
} from "./update-status.ts";

/** What {@link writeStatus} uses of a reconcile context; a `ReconcileContext` fits. */
export interface StatusContext extends TransitionReporting {
  readonly client: StatusClient;
  /** Stamps the conditions' `lastTransitionTime`. */
  readonly clock: Clock;
}

/** The status fields of `T` besides those a condition set writes (conditions, observedGeneration, phase). */
export type StatusFields<T> = Omit<StatusOf<T>, keyof ConditionsStatus>;

/**
 * One computation of the status: sets the dependent conditions on `draft` (and declares a stall
 * when there is one) and returns the kind's other status fields. `fresh` is the object as last
 * read: the one given to {@link writeStatus}, after a conflict the apiserver's copy. It must depend
 * only on `fresh` and on what the reconcile observed, since a conflict calls it again.
 */
export type DescribeStatus<T, D extends string, P extends string> = (
  draft: StatusDraft<D, P>,
  fresh: T,
) => StatusFields<T> | Promise<StatusFields<T>>;

/** Options of {@link writeStatus}: how to write, and how to tell the transitions written. */
export interface WriteStatusOptions extends UpdateStatusOptions, TransitionEventOptions {}

/** What {@link writeStatus} did, and the status it computed last. */
export interface StatusWrite<T, P extends string = string> {
  /** `updated` (written), `unchanged` (equal to the stored status; nothing sent) or `gone`. */
  readonly result: StatusWriteResult;
  /** The whole status of the last computation: what was written, or found already stored. */
  readonly status: StatusOf<T>;
  /** The conditions' part of the last computation, with its transitions (recorded only when written). */
  readonly update: StatusUpdate<P>;
}

/**
 * Writes `obj`'s status from what the reconcile observed. Begins a draft of `set` from the object
 * (stamped with `ctx.clock`), lets `describe` report the dependent conditions and return the other
 * status fields, finishes the draft, and writes the whole status to `/status` only when it differs
 * from the stored one, as {@link updateStatus} does: on a conflict it re-reads the object and
 * describes it again. When the status was written (`updated`), the transitions of that last
 * computation become events on `obj` and `kubeloop_condition_transitions_total` counts, as
 * {@link recordTransitions} makes them (`options.events` may change or drop each event); nothing is
 * recorded for a status that was not written. With `method: "apply"`, only the set's conditions are
 * applied unless `options.conditionTypes` says otherwise.
 *
 * @example
 * ```ts
 * const { result } = await writeStatus(ctx, Gizmo, gizmo, GizmoConditions, (draft, fresh) => {
 *   draft.set("ConfigMapReady", configMapReport(fresh, child));
 *   return { replicas: observedReplicas(child) };
 * });
 * // result: "updated" | "unchanged" | "gone"
 * ```
 */
export async function writeStatus<T extends KubeObject & StatusSubject, D extends string, P extends string>(
  ctx: StatusContext,
  type: ResourceType<T>,
  obj: T,
  set: ConditionSet<D, P>,
  describe: DescribeStatus<T, D, P>,
  options: WriteStatusOptions = {},
): Promise<StatusWrite<T, P>> {
  const { action, events, ...write } = options;
  // updateStatus computes at least once before it resolves.
  let last!: Omit<StatusWrite<T, P>, "result">;
  const result = await updateStatus(
    ctx.client,
    type,
    obj,
    async (fresh) => {
      const draft = set.begin(fresh, ctx.clock);
      const fields = await describe(draft, fresh);
      const update = draft.finish();
      last = { status: { ...fields, ...update.status } as StatusOf<T>, update };
      return last.status;
    },
    { conditionTypes: set.types, ...write },
  );
  if (result === "updated") recordTransitions(ctx, obj, last.update.transitions, set, { action, events });
  return { result, ...last };
}
