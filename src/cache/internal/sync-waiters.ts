/** Callers waiting for an informer's first sync, each bounded by its signal and a timeout. */
import type { Clock, Timer } from "../../clock/index.ts";
import { followAbort } from "./shared-abort.ts";

/** The pending waits for one informer's sync. */
export class SyncWaiters {
  readonly #clock: Clock;
  readonly #waiters = new Map<() => void, (err: unknown) => void>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /**
   * Resolves at {@link SyncWaiters.releaseAll}; rejects with the signal's reason when `signal`
   * aborts first, and with `timeoutError()` when `timeoutMs` passes first. Leaves no listener
   * or timer behind once settled.
   */
  wait(signal: AbortSignal | undefined, timeoutMs: number, timeoutError: () => unknown): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      let timer: Timer | undefined;
      let unfollow = () => {};
      const settle = (outcome: () => void) => {
        timer?.cancel();
        unfollow();
        this.#waiters.delete(synced);
        outcome();
      };
      const synced = () => settle(resolve);
      this.#waiters.set(synced, (err) => settle(() => reject(err)));
      if (signal) unfollow = followAbort(signal, (reason) => settle(() => reject(reason)));
      if (Number.isFinite(timeoutMs)) {
        timer = this.#clock.setTimer(timeoutMs, () => settle(() => reject(timeoutError())));
      }
    });
  }

  /** Resolves every pending wait. */
  releaseAll(): void {
    for (const synced of [...this.#waiters.keys()]) synced();
  }

  /** Rejects every pending wait with `err`. */
  rejectAll(err: unknown): void {
    for (const fail of [...this.#waiters.values()]) fail(err);
  }
}
