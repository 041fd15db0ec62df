/**
 * What a failed reconcile tells the people looking at its object, not only the log: a Warning
 * event with the error's message (the recorder makes repeats one Event's series), and, for a child
 * the apiserver refused as invalid on a kind with a condition set, the stall in its conditions.
 */
import type { KubeObject, ResourceType } from "../../api/index.ts";
import { ConflictError } from "../../client/index.ts";
import { InvalidChildError } from "../../ownership/index.ts";
import { type ConditionSet, type StallOptions, writeStatus } from "../../status/index.ts";
import { isTerminal } from "../action.ts";
import type { ReconcileContext } from "../reconciler.ts";
import { causes } from "./causes.ts";
import { serverUnavailable } from "./retries.ts";

/** Reason of the Warning event of a failed reconcile. */
const RECONCILE_ERROR_REASON = "ReconcileError";

/** Reason of the Warning event, and of the summary condition, when the apiserver refused a child as invalid. */
const INVALID_CHILD_REASON = "InvalidChild";

/** The events' action: what the controller was doing. */
const ACTION = "Reconcile";

/**
 * True when retrying cannot fix `err`: a `TerminalError`, or a child the apiserver refused as
 * invalid ({@link InvalidChildError}), either of them wrapped anywhere in the cause chain.
 */
export function isTerminalFailure(err: unknown): boolean {
  return isTerminal(err) || invalidChildIn(err) !== undefined;
}

/**
 * Reports `err` on the reconciled object: a Warning event (reason {@link RECONCILE_ERROR_REASON},
 * or {@link INVALID_CHILD_REASON}) whose note is the error's message; and for an invalid child,
 * when `type` has a condition set, the summary condition False (Unknown for a `Succeeded` summary)
 * with reason `InvalidChild` and `Stalled=True`. Nothing is reported for an object that is gone,
 * a reconcile aborted by shutdown, or a routine failure ({@link routine}). Rejects only when the
 * status write fails (the key then backs off by default).
 */
export async function reportFailure<T extends KubeObject>(
  ctx: ReconcileContext<T>,
  type: ResourceType<T>,
  err: unknown,
): Promise<void> {
  const object = ctx.object;
  if (!object || ctx.signal.aborted || routine(err)) return;
  const invalid = invalidChildIn(err);
  const reason = invalid ? INVALID_CHILD_REASON : RECONCILE_ERROR_REASON;
  ctx.recorder.warning(object, reason, ACTION, messageOf(invalid ?? err));
  const set = conditionSetOf(type);
  if (invalid && set) await stall(ctx, type, object, set, invalid);
}

/**
 * Failures no person needs to hear about: logged and retried, with no event. A 409 Conflict only
 * says that the copy written was stale, and the retry reads the fresh one: controller-runtime
 * records no event for it either (nor for any reconcile error), and reconcilers built on it
 * requeue on `apierrors.IsConflict` without a word. An apiserver that is away cannot take an event anyway,
 * and is back within seconds (the outage backoff).
 */
function routine(err: unknown): boolean {
  return serverUnavailable(err) || causes(err).some((e) => e instanceof ConflictError);
}

function invalidChildIn(err: unknown): InvalidChildError | undefined {
  return causes(err).find((e): e is InvalidChildError => e instanceof InvalidChildError);
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The kind's condition set: `defineKind({ conditions })` keeps it on the kind. */
function conditionSetOf(type: ResourceType<KubeObject>): ConditionSet | undefined {
  const set = (type as { conditions?: Partial<ConditionSet> }).conditions;
  return typeof set?.begin === "function" ? (set as ConditionSet) : undefined;
}

/**
 * Writes the stall of `invalid` into `object`'s status, for the generation the reconcile saw: one
 * attempt, and a conflict (the object changed meanwhile) leaves it to the reconcile its watch event
 * brings. The Warning event already tells it, so the transitions written record no events (they
 * are still counted).
 */
async function stall<T extends KubeObject>(
  ctx: ReconcileContext<T>,
  type: ResourceType<T>,
  object: T,
  set: ConditionSet,
  invalid: InvalidChildError,
): Promise<void> {
  const options = { maxAttempts: 1, signal: ctx.signal, events: () => undefined };
  try {
    await writeStatus(
      ctx,
      type as ResourceType<Stallable>,
      object as Stallable,
      set,
      (draft, fresh) => {
        draft.stalled(INVALID_CHILD_REASON, invalid.message, stallOptions(set));
        return { ...fresh.status };
      },
      options,
    );
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err;
  }
}

/** A `Succeeded` kind stays Unknown: `Succeeded=False` would say it ran and failed, and it never ran. */
function stallOptions(set: ConditionSet): StallOptions {
  return { summary: set.summary === "Succeeded" ? "Unknown" : "False" };
}

/** An object as `writeStatus` sees it: the status of any kind with a condition set. */
type Stallable = KubeObject & { status?: Record<string, unknown> };
