import type { Clock } from "../clock/index.ts";
import type { ConditionSet, StatusSubject, StoredStatus } from "./condition-set.ts";
import { type Condition, removeCondition, setCondition } from "./conditions.ts";
import { sameConditions, type Transition, transitionsBetween } from "./diff.ts";
import { InvalidConditionError } from "./errors.ts";
import { PROGRESSING_WITH_RETRY, RECONCILING, STALLED } from "./kstatus.ts";
import { type ConditionReport, dependentStates } from "./rollup.ts";
import { validateReason } from "./validation.ts";

/**
 * The status fields the conditions engine owns, ready to send: as a JSON merge patch on the
 * `/status` subresource, `{ status }` replaces the conditions list (conditions of types the set does
 * not own are included unchanged); for server-side apply, keep only the entries whose type is in
 * the set's `types`.
 */
export interface ConditionsStatus<P extends string = string> {
  conditions: Condition[];
  /** `metadata.generation` of the object the status was computed from (absent when it had none). */
  observedGeneration?: number;
  /** Present when the kind declares a phase function. */
  phase?: P;
}

/** What {@link StatusDraft.finish} returns. */
export interface StatusUpdate<P extends string = string> {
  /** The new status fields. */
  readonly status: ConditionsStatus<P>;
  /** Whether `status` differs from the stored status in any field it carries; write only when true. */
  readonly changed: boolean;
  /** Status changes of the set's conditions against the stored status, for events and metrics. */
  readonly transitions: readonly Transition[];
}

/** One reconcile's view of an object's conditions, started by {@link ConditionSet.begin}. */
export interface StatusDraft<D extends string = string, P extends string = string> {
  /** Reports a dependent condition, stamped with the object's generation (SetStatusCondition semantics). */
  set(type: D, report: ConditionReport): this;
  /**
   * Declares that the controller cannot make progress without outside help (an invalid spec, a
   * permanent failure): the summary becomes False with this reason and `Stalled=True` replaces
   * `Reconciling`. Holds for this reconcile only; declare it again while it stays true.
   *
   * `options.summary: "Unknown"` keeps the summary Unknown instead (with this reason): for a
   * run-to-completion kind waiting on outside help before it has run, whose `Succeeded=False`
   * would wrongly say it ran and failed.
   */
  stalled(reason: string, message?: string, options?: StallOptions): this;
  /**
   * Declares that reconciling the object keeps failing, and is retried: the summary becomes False
   * with this reason and `Reconciling=True` says so with reason {@link PROGRESSING_WITH_RETRY}, as
   * Flux marks a failure it retries; kstatus reads `InProgress`, not `Failed`, since retrying may
   * still help. A stall declared in the same draft wins. Holds for this reconcile only: the next
   * draft that does not declare it rolls the summary up from the dependents again. The controller
   * declares it for a key whose reconciles keep failing; a reconciler seldom needs to.
   *
   * `options.summary: "Unknown"` keeps the summary Unknown instead, as for {@link StatusDraft.stalled}.
   */
  failing(reason: string, message?: string, options?: StallOptions): this;
  /** Computes the new status. Does not change the draft, so it may be called again. */
  finish(): StatusUpdate<P>;
}

/** Options of {@link StatusDraft.stalled} and {@link StatusDraft.failing}. */
export interface StallOptions {
  /** The summary's status while stalled (or failing). Default `False`. */
  summary?: "False" | "Unknown";
}

/** Starts a {@link StatusDraft} for `set` from `obj`'s stored status. */
export function startDraft<D extends string, P extends string>(
  set: ConditionSet<D, P>,
  obj: StatusSubject,
  clock: Clock,
): StatusDraft<D, P> {
  return new Draft(set, obj, clock);
}

class Draft<D extends string, P extends string> implements StatusDraft<D, P> {
  readonly #set: ConditionSet<D, P>;
  readonly #stored: StoredStatus;
  readonly #generation: number | undefined;
  readonly #clock: Clock;
  readonly #conditions: Condition[];
  #stall: Override | undefined;
  #failure: Override | undefined;

  constructor(set: ConditionSet<D, P>, obj: StatusSubject, clock: Clock) {
    this.#set = set;
    this.#stored = obj.status ?? {};
    this.#generation = obj.metadata.generation;
    this.#clock = clock;
    this.#conditions = copy(this.#stored.conditions ?? []);
  }

  set(type: D, report: ConditionReport): this {
    this.#assertDependent(type);
    this.#write(this.#conditions, type, report);
    return this;
  }

  stalled(reason: string, message = "", options: StallOptions = {}): this {
    this.#stall = override(reason, message, options);
    return this;
  }

  failing(reason: string, message = "", options: StallOptions = {}): this {
    this.#failure = override(reason, message, options);
    return this;
  }

  finish(): StatusUpdate<P> {
    const conditions = copy(this.#conditions);
    const summary = this.#summary(conditions);
    this.#write(conditions, this.#set.summary, summary);
    this.#writeKstatus(conditions, summary);
    const status = this.#status(conditions);
    const stored = this.#stored.conditions ?? [];
    return {
      status,
      changed: this.#differs(status),
      transitions: transitionsBetween(stored, conditions, this.#set.types),
    };
  }

  #assertDependent(type: string): void {
    const declared: readonly string[] = this.#set.dependents.map((d) => d.type);
    if (declared.includes(type)) return;
    throw new InvalidConditionError(
      "type",
      type,
      `a draft reports the set's dependents (${declared.join(", ")}); the set computes the rest`,
      JSON.stringify(declared[0]),
    );
  }

  #summary(conditions: readonly Condition[]): ConditionReport {
    const declared = this.#stall ?? this.#failure;
    if (declared) return { ...declared };
    return this.#set.rollUp(dependentStates(this.#set.dependents, conditions, this.#generation));
  }

  #writeKstatus(conditions: Condition[], summary: ConditionReport): void {
    if (summary.status === "True") {
      removeCondition(conditions, RECONCILING);
      removeCondition(conditions, STALLED);
      return;
    }
    const [present, absent] = this.#stall ? [STALLED, RECONCILING] : [RECONCILING, STALLED];
    const { message } = summary;
    const reason = !this.#stall && this.#failure ? PROGRESSING_WITH_RETRY : summary.reason;
    this.#write(conditions, present, { status: "True", reason, message });
    removeCondition(conditions, absent);
  }

  #write(conditions: Condition[], type: string, report: ConditionReport): void {
    setCondition(conditions, { ...report, type, observedGeneration: this.#generation }, this.#clock);
  }

  #status(conditions: Condition[]): ConditionsStatus<P> {
    const status: ConditionsStatus<P> = { conditions };
    if (this.#generation !== undefined) status.observedGeneration = this.#generation;
    if (this.#set.phase) status.phase = this.#set.phase(conditions);
    return status;
  }

  #differs(status: ConditionsStatus<P>): boolean {
    if (!sameConditions(this.#stored.conditions ?? [], status.conditions)) return true;
    if ("observedGeneration" in status && status.observedGeneration !== this.#stored.observedGeneration)
      return true;
    return "phase" in status && status.phase !== this.#stored.phase;
  }
}

/** A summary the reconcile declared (a stall, a failure) instead of the roll-up's. */
interface Override {
  status: "False" | "Unknown";
  reason: string;
  message: string;
}

function override(reason: string, message: string, options: StallOptions): Override {
  validateReason(reason);
  return { status: options.summary ?? "False", reason, message };
}

function copy(conditions: readonly Condition[]): Condition[] {
  return conditions.map((c) => ({ ...c }));
}
