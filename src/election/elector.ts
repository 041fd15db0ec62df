/**
 * The leader elector: client-go's `LeaderElector` on a coordination.k8s.io/v1 Lease, looping
 * acquire → lead → (lost) → acquire until its run signal aborts.
 */
import { Lease, type LeaseObject } from "../api/index.ts";
import { AlreadyExistsError, ConflictError, NotFoundError } from "../client/index.ts";
import { type Clock, systemClock } from "../clock/index.ts";
import { ElectionAlreadyRunningError, LeadershipLostError } from "./errors.ts";
import { boundedSignal } from "./internal/bounded-signal.ts";
import { ObservedRecord } from "./internal/observed.ts";
import { LeaderTerm } from "./internal/term.ts";
import { type LeaseRecord, leaseWithRecord, microTime, newLease, readLeaseRecord } from "./lease.ts";
import { type ElectionMetrics, noopElectionMetrics } from "./metrics.ts";
import {
  defaultIdentity,
  type ElectionPhase,
  type ElectionTimings,
  type LeaderElectorOptions,
  type LeaseClient,
  requireLeaseName,
  requireText,
  resolveTimings,
  retryJitterFactor,
} from "./options.ts";

/** How one try to acquire or renew ended. */
type Attempt = "leading" | "follower" | "failed";

/**
 * One candidate in a Lease-based election, with client-go's semantics: a held Lease is taken
 * over only after its record has not changed for `leaseDuration`, as measured by this
 * candidate's own monotonic clock since it last saw a change (a wall-clock jump changes
 * nothing); every write is an update carrying the resourceVersion read (a 409 means another
 * candidate won the race); a leader that cannot renew within `renewDeadline` of its last
 * successful renewal has lost leadership at once. The leader renews every `retryPeriod`;
 * candidates retry every `retryPeriod` plus a random jitter of up to {@link retryJitterFactor} ×
 * `retryPeriod`, as client-go's acquire loop does, so replicas started together do not poll in
 * step. A released Lease is thus taken within 2.2 × `retryPeriod`.
 *
 * When its run signal aborts, the leader tells its work to stop and keeps renewing the Lease
 * until the work ended, then releases it, as controller-runtime cancels leader election only
 * after its runnables stopped: a successor never starts while the work still drains. The work
 * gets two signals ({@link LeaderElectorOptions.onStartedLeading}): told to stop, and lost.
 *
 * @example
 * ```ts
 * const elector = new LeaderElector({
 *   client,
 *   name: "my-operator",
 *   namespace: "operators",
 *   identity: `${podName}_${podUid}`,
 *   // `signal`: drain (the Lease stays renewed until this returns); `lost`: stop writing at once.
 *   onStartedLeading: (signal, lost) => runControllers(signal, lost),
 * });
 * await elector.run(shutdownSignal); // on abort: the work drains, then the Lease is released
 * ```
 */
export class LeaderElector {
  /** This candidate's identity, as written to `holderIdentity`. */
  readonly identity: string;
  /** Name of the Lease. */
  readonly name: string;
  /** Namespace of the Lease; `undefined` means the client's default namespace. */
  readonly namespace: string | undefined;
  /** The timings in force, defaults filled in. */
  readonly timings: Readonly<ElectionTimings>;
  readonly #options: LeaderElectorOptions;
  readonly #client: LeaseClient;
  readonly #clock: Clock;
  readonly #metrics: ElectionMetrics;
  readonly #random: () => number;
  readonly #observed: ObservedRecord;
  /** The Lease as this candidate last wrote it: its resourceVersion makes the leader's renews cheap. */
  #lease: LeaseObject | undefined;
  /** When the last successful write was sent, in monotonic ms (the renew deadline counts from here). */
  #renewedAt = 0;
  #term: LeaderTerm | undefined;
  #reportedLeader = "";
  #running = false;

  /** Validates the options; throws {@link InvalidElectionConfigError} when one is wrong. */
  constructor(options: LeaderElectorOptions) {
    this.name = requireLeaseName(options.name);
    this.identity = requireText("identity", options.identity ?? defaultIdentity());
    this.namespace = options.namespace;
    this.timings = Object.freeze(resolveTimings(options));
    this.#options = options;
    this.#client = options.client;
    this.#clock = options.clock ?? systemClock;
    this.#metrics = options.metrics ?? noopElectionMetrics;
    this.#random = options.random ?? Math.random;
    this.#observed = options.observed ?? new ObservedRecord();
  }

  /**
   * True while this candidate holds the Lease for its work: from `onStartedLeading` until
   * leadership is lost or, once told to stop, until the work ended (it still renews meanwhile).
   */
  isLeader(): boolean {
    return this.#term?.active ?? false;
  }

  /** The holder of the Lease as last observed; `""` before the first read or while nobody holds it. */
  get leader(): string {
    return this.#observed.holder;
  }

  /**
   * Campaigns until `signal` aborts: acquires, leads while renewals succeed, goes back to
   * acquiring when leadership is lost. API errors are retried every `retryPeriod`. On abort it
   * tells the leading work to stop, keeps renewing until the work ended (unless renewals fail
   * past the deadline: then leadership is lost), releases the Lease (unless `releaseOnCancel` is
   * false) and resolves. Throws {@link ElectionAlreadyRunningError} if already running.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#running) throw new ElectionAlreadyRunningError(this.#describe());
    this.#running = true;
    this.#metrics.masterStatus(this.name, 0);
    try {
      while (await this.#acquire(signal)) await this.#lead(signal);
      if (this.#options.releaseOnCancel !== false && this.#observed.holder === this.identity) {
        await this.#release();
      }
    } finally {
      this.#running = false;
    }
  }

  /** Tries every `retryPeriod` plus jitter until it leads (true) or `signal` aborts (false). */
  async #acquire(signal: AbortSignal): Promise<boolean> {
    while (!signal.aborted) {
      if ((await this.#attempt(signal, "acquire")) === "leading") return true;
      await this.#pause(signal, this.#jittered(this.timings.retryPeriodMs));
    }
    return false;
  }

  /** `ms` plus up to {@link retryJitterFactor} × `ms` more, as client-go's `wait.Jitter`. */
  #jittered(ms: number): number {
    return ms + this.#random() * retryJitterFactor * ms;
  }

  /**
   * Leads one term: renews every `retryPeriod` until the term is over — lost, or the work ended
   * after `signal` told it to stop — then waits for the work.
   */
  async #lead(signal: AbortSignal): Promise<void> {
    const term = this.#beginTerm();
    const work = this.#startWork(term).finally(() => term.workEnded());
    term.bind(signal, this.#renewedAt);
    while (term.active && (await this.#pause(term.over, this.timings.retryPeriodMs))) {
      const result = await this.#attempt(term.over, "renew");
      if (result === "leading") term.renewed(this.#renewedAt);
      if (result === "follower") term.lose(this.#lost(`it is now held by ${this.#observed.holder}`));
    }
    await work;
  }

  #beginTerm(): LeaderTerm {
    const term = new LeaderTerm({
      clock: this.#clock,
      renewDeadlineMs: this.timings.renewDeadlineMs,
      deadlineReason: () => this.#lost(`no renew succeeded within ${this.timings.renewDeadlineMs} ms`),
      onEnd: () => {
        this.#metrics.masterStatus(this.name, 0);
        this.#callback(() => this.#options.onStoppedLeading?.());
      },
    });
    this.#term = term;
    this.#metrics.masterStatus(this.name, 1);
    return term;
  }

  async #startWork(term: LeaderTerm): Promise<void> {
    try {
      await this.#options.onStartedLeading?.(term.signal, term.lost);
    } catch (error) {
      this.#report(error, "callback");
    }
  }

  /** One try, bounded by `renewDeadline`; failures are reported (lost races are not) and count as "failed". */
  async #attempt(signal: AbortSignal, phase: "acquire" | "renew"): Promise<Attempt> {
    const bounded = boundedSignal(signal, this.#clock, this.timings.renewDeadlineMs);
    try {
      return await this.#tryAcquireOrRenew(bounded.signal);
    } catch (error) {
      const lostRace = error instanceof ConflictError || error instanceof AlreadyExistsError;
      if (!lostRace && !signal.aborted) this.#report(error, phase);
      return "failed";
    } finally {
      bounded.dispose();
      this.#reportLeader();
    }
  }

  async #tryAcquireOrRenew(signal: AbortSignal): Promise<Attempt> {
    if (this.isLeader() && this.#lease && (await this.#renewInPlace(this.#lease, signal))) return "leading";
    const lease = await this.#get(signal);
    if (!lease) {
      await this.#store("create", newLease(this.name, this.namespace, this.#nextRecord(undefined)), signal);
      return "leading";
    }
    const current = readLeaseRecord(lease);
    this.#observed.observe(current, this.#clock.monotonicMs());
    const heldByOther = current.holderIdentity !== "" && current.holderIdentity !== this.identity;
    if (heldByOther && this.#observed.isValid(this.#clock.monotonicMs())) return "follower";
    await this.#store("update", leaseWithRecord(lease, this.#nextRecord(current)), signal);
    return "leading";
  }

  /** The leader's fast path: update the Lease it last wrote without reading it first. */
  async #renewInPlace(lease: LeaseObject, signal: AbortSignal): Promise<boolean> {
    try {
      await this.#store("update", leaseWithRecord(lease, this.#nextRecord(readLeaseRecord(lease))), signal);
      return true;
    } catch (error) {
      // Changed or deleted behind our back: read it and decide again.
      if (error instanceof ConflictError || error instanceof NotFoundError) return false;
      throw error;
    }
  }

  /** The record this candidate writes to hold the Lease, given the current one (`undefined`: none yet). */
  #nextRecord(current: LeaseRecord | undefined): LeaseRecord {
    const now = microTime(this.#clock.now());
    const ours = current?.holderIdentity === this.identity;
    return {
      holderIdentity: this.identity,
      leaseDurationSeconds: this.timings.leaseDurationMs / 1000,
      acquireTime: (ours && current.acquireTime) || now,
      renewTime: now,
      leaseTransitions: current === undefined ? 0 : current.leaseTransitions + (ours ? 0 : 1),
    };
  }

  /** Gives the Lease up if this candidate still holds it: no holder, a 1 s duration. One try. */
  async #release(): Promise<void> {
    const bounded = boundedSignal(undefined, this.#clock, this.timings.renewDeadlineMs);
    try {
      const lease = await this.#get(bounded.signal);
      const current = lease && readLeaseRecord(lease);
      if (!lease || current?.holderIdentity !== this.identity) return;
      const now = microTime(this.#clock.now());
      const released = {
        ...current,
        holderIdentity: "",
        leaseDurationSeconds: 1,
        acquireTime: now,
        renewTime: now,
      };
      await this.#store("update", leaseWithRecord(lease, released), bounded.signal);
    } catch (error) {
      this.#report(error, "release");
    } finally {
      bounded.dispose();
    }
  }

  async #get(signal: AbortSignal): Promise<LeaseObject | undefined> {
    try {
      return await this.#client.get(Lease, this.name, { namespace: this.namespace, signal });
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }

  async #store(verb: "create" | "update", lease: LeaseObject, signal: AbortSignal): Promise<void> {
    const sentAt = this.#clock.monotonicMs();
    const stored = await this.#client[verb](Lease, this.#owned(lease), { namespace: this.namespace, signal });
    this.#lease = stored;
    this.#renewedAt = sentAt;
    this.#observed.observe(readLeaseRecord(stored), this.#clock.monotonicMs());
  }

  /** `lease` with the owners this candidate writes, if any. */
  #owned(lease: LeaseObject): LeaseObject {
    const owners = this.#options.ownerReferences;
    if (!owners?.length) return lease;
    return { ...lease, metadata: { ...lease.metadata, ownerReferences: [...owners] } };
  }

  /** Sleeps `ms`; false when `signal` aborted first. */
  #pause(signal: AbortSignal, ms: number): Promise<boolean> {
    return this.#clock.sleep(ms, signal).then(
      () => true,
      () => false,
    );
  }

  #reportLeader(): void {
    const holder = this.#observed.holder;
    if (!holder || holder === this.#reportedLeader) return;
    if (this.#reportedLeader) this.#metrics.leaderTransition(this.name);
    this.#reportedLeader = holder;
    this.#callback(() => this.#options.onNewLeader?.(holder));
  }

  #lost(why: string): LeadershipLostError {
    return new LeadershipLostError(this.#describe(), why);
  }

  #describe(): string {
    return `${this.namespace ?? "(default namespace)"}/${this.name}`;
  }

  #callback(call: () => void): void {
    try {
      call();
    } catch (error) {
      this.#report(error, "callback");
    }
  }

  #report(error: unknown, phase: ElectionPhase): void {
    try {
      this.#options.onError?.(error, phase);
    } catch {
      // An error reporter that throws has nowhere left to report to; the election goes on.
    }
  }
}
