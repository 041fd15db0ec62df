/** Callers waiting for a value, woken in arrival order; a waiter whose signal aborts leaves the line. */
export class Waiters<T> {
  readonly #line = new Set<(value: T) => void>();

  /** Number of callers waiting. */
  get size(): number {
    return this.#line.size;
  }

  /** Waits to be woken; rejects with the signal's reason if it aborts first. */
  wait(signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.#line.delete(wake);
        reject(signal?.reason);
      };
      const wake = (value: T) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(value);
      };
      this.#line.add(wake);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Wakes the longest waiting caller with `value`. */
  wakeOne(value: T): void {
    const first = this.#line.values().next().value;
    if (first === undefined) return;
    this.#line.delete(first);
    first(value);
  }

  /** Wakes every waiting caller with `value`. */
  wakeAll(value: T): void {
    const woken = [...this.#line];
    this.#line.clear();
    for (const wake of woken) wake(value);
  }
}
