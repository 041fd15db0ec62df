/** Latencies of named operations, from the moment each starts to the moment the tracker sees it done. */

/** The `p`-th percentile of sorted values (nearest rank). */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** One stopwatch per name; `all` resolves once `count` of them stopped. */
export class Stopwatches {
  readonly #count: number;
  readonly #started = new Map<string, number>();
  readonly #latencies: number[] = [];
  #resolve: () => void = () => {};
  /** Resolves when `count` stopwatches stopped. */
  readonly all = new Promise<void>((resolve) => {
    this.#resolve = resolve;
  });

  constructor(count: number) {
    this.#count = count;
  }

  /** Starts `name`'s stopwatch now. */
  start(name: string): void {
    this.#started.set(name, performance.now());
  }

  /** Stops `name`'s stopwatch at `at`, if it runs; the shape of the tracker's hooks. */
  readonly stop = (name: string, at: number): void => {
    const startedAt = this.#started.get(name);
    if (startedAt === undefined) return;
    this.#started.delete(name);
    this.#latencies.push(at - startedAt);
    if (this.#latencies.length === this.#count) this.#resolve();
  };

  /** How many stopped, their p50 and p99 (∞ while some are still running) and the longest, in ms. */
  summary(): { stopped: number; p50Ms: number; p99Ms: number; maxMs: number } {
    const sorted = [...this.#latencies].sort((a, b) => a - b);
    return {
      stopped: sorted.length,
      p50Ms: percentile(sorted, 50),
      p99Ms: sorted.length < this.#count ? Number.POSITIVE_INFINITY : percentile(sorted, 99),
      maxMs: sorted.at(-1) ?? Number.NaN,
    };
  }
}
