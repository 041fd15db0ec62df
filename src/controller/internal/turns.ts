/**
 * Fair turns for a worker on the event loop. A reconcile that does no I/O (a cache read, then
 * `Action.requeueAfter(0)`) resolves in a microtask, and so does taking the next ready key: a
 * worker could run forever without letting a timer, a signal, a health probe or a Lease renewal
 * run. Go's scheduler preempts goroutines, so controller-runtime has no counterpart.
 */
import { setImmediate as nextTurn } from "node:timers/promises";

/**
 * How long a worker may keep the event loop, in milliseconds, before it yields a turn. Measured
 * (Node 20, a reconcile that does nothing but `requeueAfter(0)`, ~13 µs each through the
 * controller): yielding after every key costs ~4 µs a key, a third of that loop's throughput;
 * with this budget the cost is one `performance.now()` a key (~70 ns, under 1 %) plus one
 * `setImmediate` every 10 ms, and a timer or probe waits at most ~10 ms more.
 */
export const turnBudgetMs = 10;

/** Tracks one worker's time on the event loop. */
export class Turns {
  #since = performance.now();

  /**
   * True once the worker has kept the loop for its budget. Real time on purpose, not the
   * controller's clock: fairness is about the CPU this process spends, and a `FakeClock` must not
   * starve the loop either.
   */
  due(): boolean {
    return performance.now() - this.#since >= turnBudgetMs;
  }

  /** Resolves once the event loop has run its timers and I/O (one `setImmediate`); the budget starts again. */
  async yield(): Promise<void> {
    await nextTurn();
    this.#since = performance.now();
  }
}
