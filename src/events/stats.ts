/** Counters of one {@link EventRecorder}, since it was made. */
export interface RecorderStats {
  /** Occurrences accepted: first occurrences and repeats, not the dropped ones. */
  recorded: number;
  /** Event objects created (a series recreated after its Event vanished counts again). */
  created: number;
  /** Series updates written. */
  seriesUpdates: number;
  /** New events dropped by the per-object rate limit. */
  droppedRateLimited: number;
  /** Pending writes dropped, oldest first, because the queue was full. */
  droppedQueueFull: number;
  /** Writes given up (a permanent error, the last retry, or shutdown) and calls rejected as malformed. */
  failed: number;
}
