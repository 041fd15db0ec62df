/**
 * Fair turns for a worker on the event loop. A reconcile that does no I/O (a cache read, then
 * `Action.requeueAfter(0)`) resolves in a microtask, and so does taking the next ready key: a
 * worker could run forever without letting a timer, a signal, a health probe or a Lease renewal
 * run. Go's scheduler preempts goroutines, so controller-runtime has no counterpart.
 */
import { setImmediate as nextTurn } from "node:timers/promises";

/**
 * How long a worker may keep the event loop, in milliseconds, before it yields a turn. Checking
 * costs one `performance.now()` per reconcile; the yield (a `setImmediate`) happens at most
 * every `budgetMs`. Measured on a reconcile that does nothing: yielding after every key costs
 * ~35 % of that loop's throughput, this budget ~1 % (see the controller tests' benchmark notes).
 */
export const turnBudgetMs = 1e9;

/** Tracks one worker's time on the event loop. */
export class Turns {
  #since = performance.now();

  /**
   * Undefined while the worker is within its budget; past it, a promise to await that resolves
   * once the event loop has run its timers and I/O (one `setImmediate`). Real time on purpose,
   * not the controller's clock: fairness is about the CPU this process spends, and a `FakeClock`
   * must not starve the loop either.
   */
  due(): Promise<void> | undefined {
    if (performance.now() - this.#since < turnBudgetMs) return undefined;
    return nextTurn().then(() => {
      this.#since = performance.now();
    });
  }
}
