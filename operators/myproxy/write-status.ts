/**
 * The status write both controllers share: compute the conditions with a condition set from the
 * freshly read object, send the status only when it changed, and report condition transitions as
 * events once written.
 */
import {
  type ConditionSet,
  type KubeObject,
  type ReconcileContext,
  type ResourceType,
  recordTransitions,
  type StatusDraft,
  type StatusOf,
  type StatusSubject,
  type StatusUpdate,
  type StatusWriteResult,
  updateStatus,
} from "kubeloop";

/**
 * Writes `obj`'s status: `report` sets the dependent conditions on a draft begun from the fresh
 * object and returns the status fields besides the conditions.
 */
export async function writeStatus<T extends KubeObject & StatusSubject, D extends string>(
  ctx: Pick<ReconcileContext<T>, "client" | "recorder" | "metrics">,
  kind: ResourceType<T>,
  obj: T,
  set: ConditionSet<D>,
  report: (draft: StatusDraft<D>) => Record<string, unknown>,
): Promise<StatusWriteResult> {
  let update: StatusUpdate | undefined;
  const result = await updateStatus(ctx.client, kind, obj, (fresh) => {
    const draft = set.begin(fresh);
    const fields = report(draft);
    update = draft.finish();
    return { ...fields, ...update.status } as StatusOf<T>;
  });
  if (result === "updated" && update) recordTransitions(ctx, obj, update.transitions, set);
  return result;
}
