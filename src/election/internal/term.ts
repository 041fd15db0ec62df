import type { Clock, Timer } from "../../clock/index.ts";

/** What a {@link LeaderTerm} needs to know. */
export interface LeaderTermOptions {
  clock: Clock;
  renewDeadlineMs: number;
  /** The reason the term's signal aborts with when the renew deadline passes. */
  deadlineReason: () => unknown;
  /** Runs once, synchronously, right after the term's signal aborted. */
  onEnd: () => void;
}

/**
 * One period of leadership: a signal that aborts the moment it ends, and the renew deadline.
 * The deadline is a timer, so a renew request that hangs cannot delay the end.
 */
export class LeaderTerm {
  readonly #controller = new AbortController();
  readonly #options: LeaderTermOptions;
  #parent: AbortSignal | undefined;
  #deadline: Timer | undefined;
  readonly #onParentAbort = () => this.end(this.#parent?.reason);

  constructor(options: LeaderTermOptions) {
    this.#options = options;
  }

  /** Aborts when the term ends: with the parent's reason on shutdown, else with the loss reason. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** True until the term ends. */
  get active(): boolean {
    return !this.#controller.signal.aborted;
  }

  /** Ends the term when `parent` aborts, and arms the deadline from `renewedAt` (monotonic ms). */
  bind(parent: AbortSignal, renewedAt: number): void {
    this.#parent = parent;
    this.renewed(renewedAt);
    if (parent.aborted) this.#onParentAbort();
    else parent.addEventListener("abort", this.#onParentAbort, { once: true });
  }

  /** Restarts the deadline: the term ends `renewDeadlineMs` after `renewedAt` (monotonic ms) unless renewed again. */
  renewed(renewedAt: number): void {
    if (!this.active) return;
    const { clock, renewDeadlineMs, deadlineReason } = this.#options;
    this.#deadline?.cancel();
    this.#deadline = clock.setTimer(renewedAt + renewDeadlineMs - clock.monotonicMs(), () =>
      this.end(deadlineReason()),
    );
  }

  /** Ends the term with `reason`; later calls do nothing. */
  end(reason: unknown): void {
    if (!this.active) return;
    this.#deadline?.cancel();
    this.#parent?.removeEventListener("abort", this.#onParentAbort);
    this.#controller.abort(reason);
    this.#options.onEnd();
  }
}
