/**
 * The priority of every add that does not say otherwise: real changes, explicit requeues and
 * retries of such keys. controller-runtime's default, 0.
 */
export const NORMAL_PRIORITY = 0;

/**
 * The priority of keys that only repeat what is known: an informer's initial list and resyncs.
 * controller-runtime's `handler.LowPriority`, -100, which leaves room for priorities between.
 */
export const LOW_PRIORITY = -100;

/** Options of {@link WorkQueue.add}, {@link WorkQueue.addAfter} and {@link WorkQueue.addRateLimited}. */
export interface AddOptions {
  /**
   * Higher priorities get a larger share of the consumers' time (2 × per 100 points; see
   * {@link WorkQueue}), and with no time between takes are handed out first. A key added again
   * keeps the highest priority it was added with until it is handed out. Any finite number;
   * default {@link NORMAL_PRIORITY}.
   */
  priority?: number;
}
