import type { Clock, Timer } from "../../clock/index.ts";

/** What a {@link LeaderTerm} needs to know. */
export interface LeaderTermOptions {
  clock: Clock;
  renewDeadlineMs: number;
  /** The reason the term is lost with when the renew deadline passes. */
  deadlineReason: () => unknown;
  /** Runs once, synchronously, right after the term ended (lost, or its work ended after being told to stop). */
  onEnd: () => void;
}

/**
 * One period of leadership and its two signals. The work is told to stop ({@link signal}) when
 * the run signal aborts or leadership is lost; leadership is lost ({@link lost}) when the renew
 * deadline passes — counted from the last successful renewal, while the work drains too — or when
 * another holder is seen. The term is over when lost, or once the work ended after it was told to
 * stop: until then the leader renews. The deadline is a timer, so a renew request that hangs
 * cannot delay the loss.
 */
export class LeaderTerm {
  readonly #stop = new AbortController();
  readonly #lost = new AbortController();
  readonly #over = new AbortController();
  readonly #options: LeaderTermOptions;
  #parent: AbortSignal | undefined;
  #deadline: Timer | undefined;
  #workEnded = false;
  readonly #onParentAbort = () => this.#tellStop(this.#parent?.reason);

  constructor(options: LeaderTermOptions) {
    this.#options = options;
  }

  /** Aborts when the work must stop: with the parent's reason when told to, with the loss reason when lost. */
  get signal(): AbortSignal {
    return this.#stop.signal;
  }

  /** Aborts only when leadership is lost, with the reason. */
  get lost(): AbortSignal {
    return this.#lost.signal;
  }

  /** Aborts when the term is over: lost, or its work ended after it was told to stop. */
  get over(): AbortSignal {
    return this.#over.signal;
  }

  /** True until the term is over. */
  get active(): boolean {
    return !this.#over.signal.aborted;
  }

  /** Tells the work to stop when `parent` aborts, and arms the deadline from `renewedAt` (monotonic ms). */
  bind(parent: AbortSignal, renewedAt: number): void {
    this.#parent = parent;
    this.renewed(renewedAt);
    if (parent.aborted) this.#onParentAbort();
    else parent.addEventListener("abort", this.#onParentAbort, { once: true });
  }

  /** Restarts the deadline: the term is lost `renewDeadlineMs` after `renewedAt` (monotonic ms) unless renewed again. */
  renewed(renewedAt: number): void {
    if (!this.active) return;
    const { clock, renewDeadlineMs, deadlineReason } = this.#options;
    this.#deadline?.cancel();
    this.#deadline = clock.setTimer(renewedAt + renewDeadlineMs - clock.monotonicMs(), () =>
      this.lose(deadlineReason()),
    );
  }

  /** Loses leadership with `reason`: aborts `lost`, then `signal`, and ends the term. Later calls do nothing. */
  lose(reason: unknown): void {
    if (!this.active) return;
    this.#lost.abort(reason);
    this.#stop.abort(reason);
    this.#end();
  }

  /** The work returned: the term ends now if it was told to stop, else when it is. */
  workEnded(): void {
    this.#workEnded = true;
    if (this.#stop.signal.aborted) this.#end();
  }

  #tellStop(reason: unknown): void {
    this.#stop.abort(reason);
    if (this.#workEnded) this.#end();
  }

  #end(): void {
    if (!this.active) return;
    this.#deadline?.cancel();
    this.#parent?.removeEventListener("abort", this.#onParentAbort);
    this.#over.abort();
    this.#options.onEnd();
  }
}
