/**
 * What a failed reconcile tells the people looking at its object, not only the log: a Warning
 * event with the error's message (the recorder makes repeats one Event's series); on a kind with a
 * condition set, the stall of a child the apiserver refused as invalid, a child a quota or an
 * admission check refused, and a key whose reconciles keep failing, in its conditions, the way
 * kstatus (and so Flux, Argo CD, `kubectl wait`) reads them.
 */
import type { KubeObject, ResourceType } from "../../api/index.ts";
import { type Client, ConflictError, ForbiddenError } from "../../client/index.ts";
import type { Clock } from "../../clock/index.ts";
import type { EventRecorder } from "../../events/index.ts";
import {
  type ChildTrouble,
  type ConditionSet,
  childRefusal,
  type StallOptions,
  type StatusDraft,
  writeStatus,
} from "../../status/index.ts";
import { isTerminal } from "../action.ts";
import { ReconcileTimeoutError, StalledError } from "../errors.ts";
import type { ShowFailingAfter } from "../options.ts";
import type { ReconcileReporting } from "../reconciler.ts";
import { causes } from "./causes.ts";
import { serverUnavailable } from "./retries.ts";

/** Reason of the Warning event of a failed reconcile. */
const RECONCILE_ERROR_REASON = "ReconcileError";

/** Reason of the Warning event of a reconcile that ran past its timeout. */
const TIMEOUT_REASON = "ReconcileTimeout";

/** Reason of the summary condition of a key whose reconciles keep failing. */
const RECONCILE_FAILED_REASON = "ReconcileFailed";

/** The events' action: what the controller was doing. */
const ACTION = "Reconcile";

/** How much of the last error a failing object's conditions show, in characters. */
const ERROR_SHOWN_CHARS = 1_000;

/**
 * How soon a failing key's conditions are written again once shown (a new last error, or the
 * reconciler wrote over them). Each write's own watch event brings the key back at once, past its
 * backoff: a last error that differs every time must not turn that into a loop.
 */
const REWRITE_FAILING_MS = 30_000;

/**
 * What the reports write and record through: the controller's own client, never a reconcile's
 * (fenced once its reconcile timed out), its clock, recorder and metrics.
 */
export interface FailureDeps {
  readonly client: Client;
  readonly clock: Clock;
  readonly recorder: EventRecorder;
  readonly report: ReconcileReporting;
}

/** Failures in a row of one key. */
interface Streak {
  /** When the first of them was reported (epoch ms). */
  readonly since: number;
  failures: number;
  /** When its failure was last written to the object. */
  shownAt?: number;
}

/** A failed reconcile's error, classified once for the log, the retry and the reports. */
export interface Failure {
  readonly err: unknown;
  /** Retrying cannot fix it ({@link isTerminalFailure}). */
  readonly terminal: boolean;
  /** Nobody needs to hear of it ({@link isRoutineFailure}): logged at info, no event, not counted. */
  readonly routine: boolean;
}

/** Classifies the error of a failed reconcile: whether it is terminal, whether it is routine. */
export function classifyFailure(err: unknown): Failure {
  return { err, terminal: isTerminalFailure(err), routine: isRoutineFailure(err) };
}

/**
 * True when retrying cannot fix `err`: a `TerminalError` or a {@link StalledError} (a child the
 * apiserver refused as invalid, a spec failing its kind's refinements), any of them wrapped
 * anywhere in the cause chain.
 */
function isTerminalFailure(err: unknown): boolean {
  return isTerminal(err) || stallIn(err) !== undefined;
}

/**
 * Reports a controller's failed reconciles on their objects, and keeps each key's failures in a
 * row (forgotten by {@link FailureReports.ended}) to tell when they keep failing.
 */
export class FailureReports<T extends KubeObject> {
  readonly #type: ResourceType<T>;
  readonly #deps: FailureDeps;
  readonly #after: ShowFailingAfter | false;
  readonly #streaks = new Map<string, Streak>();

  constructor(type: ResourceType<T>, deps: FailureDeps, show: ShowFailingAfter | false = {}) {
    this.#type = type;
    this.#deps = deps;
    this.#after = show;
  }

  /**
   * Reports that the reconcile of `key` failed (`failure`, classified by the controller): a Warning
   * event on `object` (reason `ReconcileError`, `ReconcileTimeout`, `InvalidChild`, `SpecInvalid`,
   * or a refused child's) whose note is the error's message. When the kind has a condition set: for an invalid child or a spec
   * failing its refinements, the summary False (Unknown for a `Succeeded` summary) with reason
   * `InvalidChild` or `SpecInvalid` and `Stalled=True`; for a key
   * failing past `showFailingAfter`, the summary False (Unknown) with reason `ReconcileFailed` and
   * `Reconciling=True` (`ProgressingWithRetry`), saying `failing since <first failure>; last
   * error: <its message>`; for a child the apiserver refused (`childRefusal`: a quota, an
   * admission check), the same from its first failure, with the refusal's reason (`QuotaExceeded`,
   * ...) and message, which its event carries too. Written when it changes what the object shows,
   * at most once every {@link REWRITE_FAILING_MS}. Nothing is reported, nor counted, for a routine
   * failure ({@link Failure.routine}); nothing is reported for an object that is gone, or once
   * `stop` (the controller's hard stop) aborted. Rejects only when the status write fails (the key then backs
   * off by default).
   */
  async failed(key: string, object: T | undefined, failure: Failure, stop: AbortSignal): Promise<void> {
    if (failure.routine) return;
    const { err } = failure;
    const streak = this.#count(key);
    if (!object || stop.aborted) return;
    const stall = stallIn(err);
    const refused = refusalIn(err);
    const note = refused?.message ?? stall?.message ?? messageOf(err);
    this.#deps.recorder.warning(object, eventReason(err, stall, refused), ACTION, note);
    const set = conditionSetOf(this.#type);
    if (!set) return;
    const options = summaryWhenFailing(set);
    if (stall) {
      await this.#write(object, set, stop, (d) => d.stalled(stall.reason, stall.message, options));
    } else if (this.#due(streak, refused !== undefined)) {
      const { reason, message } = refused ?? {
        reason: RECONCILE_FAILED_REASON,
        message: failingMessage(streak.since, err),
      };
      const sent = await this.#write(object, set, stop, (d) => d.failing(reason, message, options));
      if (sent) streak.shownAt = this.#deps.clock.now();
    }
  }

  /** The key was reconciled, or is no longer retried: its failures in a row are over. */
  ended(key: string): void {
    this.#streaks.delete(key);
  }

  #count(key: string): Streak {
    const streak = this.#streaks.get(key) ?? { since: this.#deps.clock.now(), failures: 0 };
    streak.failures++;
    this.#streaks.set(key, streak);
    return streak;
  }

  /**
   * Whether to show the failures of `streak` now: a refused child at once, others once they keep
   * failing; never with `showFailingAfter: false`, and not again within {@link REWRITE_FAILING_MS}.
   */
  #due(streak: Streak, refused: boolean): boolean {
    const after = this.#after;
    if (after === false || !this.#mayShow(streak)) return false;
    const { failures = 10, ms = 30_000 } = after;
    return refused || streak.failures >= failures || this.#deps.clock.now() - streak.since >= ms;
  }

  #mayShow({ shownAt }: Streak): boolean {
    return shownAt === undefined || this.#deps.clock.now() - shownAt >= REWRITE_FAILING_MS;
  }

  /**
   * Writes what `declare` declares into `object`'s status, for the generation the reconcile saw:
   * only when it changes what the object shows, in one attempt; a conflict (the object changed
   * meanwhile) leaves it to the next reconcile. The Warning event already tells the failure, so
   * the transitions written record no events (they are still counted). Resolves whether it was
   * written.
   */
  async #write(
    object: T,
    set: ConditionSet,
    stop: AbortSignal,
    declare: (draft: StatusDraft) => void,
  ): Promise<boolean> {
    const options = { maxAttempts: 1, signal: stop, events: () => undefined };
    try {
      const { result } = await writeStatus(
        this.#deps,
        this.#type as unknown as ResourceType<Reportable>,
        object as Reportable,
        set,
        (draft, fresh) => {
          declare(draft);
          return { ...fresh.status };
        },
        options,
      );
      return result !== "unchanged";
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
      return false;
    }
  }
}

/**
 * Failures no person needs to hear about: logged at info and retried, with no event. A 409
 * Conflict only says that the copy written was stale, and the retry reads the fresh one:
 * controller-runtime records no event for it either (nor for any reconcile error), and reconcilers
 * built on it requeue on `apierrors.IsConflict` without a word. An apiserver that is away cannot
 * take an event anyway, and is back within seconds (the outage backoff). A namespace being deleted
 * refuses every create in it, events too, and takes the object with it.
 */
function isRoutineFailure(err: unknown): boolean {
  return (
    serverUnavailable(err) ||
    causes(err).some(
      (e) => e instanceof ConflictError || (e instanceof ForbiddenError && e.deniedBy === "terminating"),
    )
  );
}

/**
 * What stalls the object until it changes, in `err`'s cause chain ({@link StalledError}): a child
 * the apiserver refused as invalid, or a spec failing its kind's refinements.
 */
function stallIn(err: unknown): StalledError | undefined {
  return causes(err).find((e): e is StalledError => e instanceof StalledError);
}

/** What a child refused by the apiserver (a quota, an admission check) in `err`'s cause chain says. */
function refusalIn(err: unknown): ChildTrouble | undefined {
  return causes(err)
    .map(childRefusal)
    .find((refused) => refused !== undefined);
}

function eventReason(
  err: unknown,
  stall: { reason: string } | undefined,
  refused: ChildTrouble | undefined,
): string {
  if (stall) return stall.reason;
  if (refused) return refused.reason;
  return err instanceof ReconcileTimeoutError ? TIMEOUT_REASON : RECONCILE_ERROR_REASON;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** `failing since 2026-11-22T04:25:53Z; last error: <the error's first characters>`. */
function failingMessage(since: number, err: unknown): string {
  const error = messageOf(err);
  const shown = error.length > ERROR_SHOWN_CHARS ? `${error.slice(0, ERROR_SHOWN_CHARS - 1)}…` : error;
  const time = new Date(Math.floor(since / 1000) * 1000).toISOString().replace(".000Z", "Z");
  return `failing since ${time}; last error: ${shown}`;
}

/** The kind's condition set: `defineKind({ conditions })` keeps it on the kind. */
function conditionSetOf(type: ResourceType<KubeObject>): ConditionSet | undefined {
  const set = (type as { conditions?: Partial<ConditionSet> }).conditions;
  return typeof set?.begin === "function" ? (set as ConditionSet) : undefined;
}

/**
 * A `Succeeded` kind stays Unknown: `Succeeded=False` would say it ran and failed, and its
 * controller only failed to tell.
 */
function summaryWhenFailing(set: ConditionSet): StallOptions {
  return { summary: set.summary === "Succeeded" ? "Unknown" : "False" };
}

/** An object as `writeStatus` sees it: the status of any kind with a condition set. */
type Reportable = KubeObject & { status?: Record<string, unknown> };
