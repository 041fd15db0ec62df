/**
 * Hooks a {@link WorkQueue} calls as work moves through it, named after controller-runtime's
 * `workqueue_*` metrics. The manager binds them to Prometheus; the queue itself depends on no
 * metrics library. The two gauges sampled on scrape, `workqueue_unfinished_work_seconds` and
 * `workqueue_longest_running_processor_seconds`, are methods of the queue instead
 * ({@link WorkQueue.unfinishedWorkSeconds}, {@link WorkQueue.longestRunningProcessorSeconds}).
 *
 * @see WorkQueue
 */
export interface QueueMetrics {
  /**
   * `workqueue_depth{priority}`: the number of keys queued at `priority` and not yet handed out,
   * counting keys held back because they are being processed. Called with the new value of a
   * priority whenever it changes; a key raised to a higher priority moves between two. The
   * label is the priority as a decimal string (`"0"`, `"-100"`), as controller-runtime sets it.
   */
  depth(keys: number, priority: number): void;
  /** `workqueue_adds_total`: a key was queued. Adds that collapse into a queued key do not count. */
  added(): void;
  /** `workqueue_queue_duration_seconds`: how long a key waited between being queued and handed out. */
  queueDuration(seconds: number): void;
  /** `workqueue_work_duration_seconds`: how long a key was processed, from `get` to `done`. */
  workDuration(seconds: number): void;
  /** `workqueue_retries_total`: a key was added with a non-zero delay. */
  retried(): void;
}

/** {@link QueueMetrics} that record nothing; the queue's default. */
export const noopQueueMetrics: QueueMetrics = {
  depth() {},
  added() {},
  queueDuration() {},
  workDuration() {},
  retried() {},
};
