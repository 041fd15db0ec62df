/**
 * @module clock
 *
 * Time, injected. Code that waits, backs off or measures durations takes a {@link Clock}
 * instead of calling `Date.now` or `setTimeout` directly, so that unit tests can drive time
 * with a {@link FakeClock} and run instantly and deterministically.
 *
 * @example
 * ```ts
 * const clock = new FakeClock();
 * const slept = clock.sleep(1000);
 * clock.advance(1000); // resolves `slept`
 * await slept;
 * ```
 */

/** A cancellable one-shot timer. */
export interface Timer {
  /** Stops the timer; its callback will not run. Safe to call more than once. */
  cancel(): void;
}

/** A source of the current time and of timers. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Runs `fn` once after `ms` milliseconds. */
  setTimer(ms: number, fn: () => void): Timer;
  /** Resolves after `ms` milliseconds, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

function sleepWith(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      timer.cancel();
      reject(signal?.reason);
    };
    const timer = clock.setTimer(ms, () => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    });
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The real clock. Its timers (not its sleeps) do not keep the process alive on their own. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(ms, fn) {
    const handle = setTimeout(fn, Math.max(0, ms));
    handle.unref();
    return { cancel: () => clearTimeout(handle) };
  },
  sleep(ms, signal) {
    // Unlike setTimer, a pending sleep keeps the process alive: someone is awaiting it.
    return sleepWith({ ...systemClock, setTimer: refTimer }, ms, signal);
  },
};

function refTimer(ms: number, fn: () => void): Timer {
  const handle = setTimeout(fn, Math.max(0, ms));
  return { cancel: () => clearTimeout(handle) };
}

interface PendingTimer {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/** A clock that only moves when told to; timers fire in due order during {@link FakeClock.advance}. */
export class FakeClock implements Clock {
  #now: number;
  #seq = 0;
  #timers: PendingTimer[] = [];

  constructor(start = 0) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimer(ms: number, fn: () => void): Timer {
    const timer = { at: this.#now + Math.max(0, ms), seq: this.#seq++, fn, cancelled: false };
    this.#timers.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepWith(this, ms, signal);
  }

  /** Number of timers that are still waiting to fire. */
  get pending(): number {
    return this.#timers.filter((t) => !t.cancelled).length;
  }

  /** Moves time forward by `ms`, firing every timer that falls due, in order. */
  advance(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      const due = this.#timers
        .filter((t) => !t.cancelled && t.at <= target)
        .sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.#timers = this.#timers.filter((t) => t !== due);
      this.#now = due.at;
      due.fn();
    }
    this.#timers = this.#timers.filter((t) => !t.cancelled);
    this.#now = target;
  }
}
