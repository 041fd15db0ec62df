/**
 * @module clock
 *
 * Time, injected. Code that waits, backs off or measures durations takes a {@link Clock}
 * instead of calling `Date.now` or `setTimeout` directly, so that unit tests can drive time
 * with a {@link FakeClock} and run instantly and deterministically.
 *
 * A clock has two times: the wall clock ({@link Clock.now}, for timestamps other machines read)
 * and a monotonic one ({@link Clock.monotonicMs}, for durations measured locally, which NTP
 * steps and manual date changes do not move). Timers run on monotonic time and accept any
 * delay, beyond Node's 24.8-day timer limit too.
 *
 * @example
 * ```ts
 * const clock = new FakeClock();
 * const slept = clock.sleep(1000);
 * clock.advance(1000); // resolves `slept`
 * await slept;
 * ```
 */
import { chainedTimer, nodeTimerHost, timerDelay } from "./internal/timers.ts";

/** A cancellable one-shot timer. */
export interface Timer {
  /** Stops the timer; its callback will not run. Safe to call more than once. */
  cancel(): void;
}

/** A source of the current time and of timers. */
export interface Clock {
  /** Milliseconds since the Unix epoch (wall clock: it may jump when the system time is set). */
  now(): number;
  /**
   * Milliseconds since an arbitrary origin, never going backwards nor jumping: measure local
   * durations (deadlines, lease expiry) with it, never with {@link Clock.now}.
   */
  monotonicMs(): number;
  /**
   * Runs `fn` once after `ms` milliseconds of monotonic time. Any delay works (`Infinity` never
   * fires); a negative or NaN one fires as soon as possible.
   */
  setTimer(ms: number, fn: () => void): Timer;
  /** Resolves after `ms` milliseconds, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

function sleepWith(setTimer: Clock["setTimer"], ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      timer.cancel();
      reject(signal?.reason);
    };
    const timer = setTimer(ms, () => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    });
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Resolves (with undefined) when `signal` aborts: at once when it already has. */
export function untilAborted(signal: AbortSignal): Promise<undefined> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(undefined);
    else signal.addEventListener("abort", () => resolve(undefined), { once: true });
  });
}

/**
 * The real clock: `Date.now` and `performance.now`. Its timers chain Node timers for delays past
 * 2^31 - 1 ms, which Node would otherwise run after 1 ms. Its timers (not its sleeps) do not keep
 * the process alive on their own.
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  monotonicMs: () => performance.now(),
  setTimer: (ms, fn) => chainedTimer(nodeTimerHost, ms, fn, false),
  sleep(ms, signal) {
    // Unlike setTimer, a pending sleep keeps the process alive: someone is awaiting it.
    return sleepWith((delay, fn) => chainedTimer(nodeTimerHost, delay, fn, true), ms, signal);
  },
};

interface PendingTimer {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/**
 * A clock that only moves when told to: {@link FakeClock.advance} moves wall and monotonic time
 * together and fires the timers that fall due, in order; {@link FakeClock.jumpWallClock} moves
 * the wall clock alone, as a system time change does. Monotonic time starts at 0.
 */
export class FakeClock implements Clock {
  #monotonic = 0;
  /** Wall time minus monotonic time. */
  #wallOffset: number;
  #seq = 0;
  #timers: PendingTimer[] = [];

  /** Starts the wall clock at `start` (epoch milliseconds). */
  constructor(start = 0) {
    this.#wallOffset = start;
  }

  now(): number {
    return this.#monotonic + this.#wallOffset;
  }

  monotonicMs(): number {
    return this.#monotonic;
  }

  setTimer(ms: number, fn: () => void): Timer {
    const timer = { at: this.#monotonic + timerDelay(ms), seq: this.#seq++, fn, cancelled: false };
    this.#timers.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepWith((delay, fn) => this.setTimer(delay, fn), ms, signal);
  }

  /** Number of timers that are still waiting to fire. */
  get pending(): number {
    return this.#timers.filter((t) => !t.cancelled).length;
  }

  /** Moves time forward by `ms`, firing every timer that falls due, in order. */
  advance(ms: number): void {
    const target = this.#monotonic + ms;
    for (;;) {
      const due = this.#timers
        .filter((t) => !t.cancelled && t.at <= target)
        .sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.#timers = this.#timers.filter((t) => t !== due);
      this.#monotonic = due.at;
      due.fn();
    }
    this.#timers = this.#timers.filter((t) => !t.cancelled);
    this.#monotonic = target;
  }

  /** Moves the wall clock ({@link FakeClock.now}) by `ms`, either way, without moving monotonic time or firing timers. */
  jumpWallClock(ms: number): void {
    this.#wallOffset += ms;
  }
}
