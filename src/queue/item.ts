/** One reason a key was queued, and how many triggers with that reason collapsed into the item. */
export interface QueueReason {
  /** Why the key was queued, e.g. `watch:ConfigMap`, `owner:Job`, `resync`, `retry`, `requeue-after`. */
  readonly reason: string;
  /** How many adds with this reason were coalesced. */
  readonly count: number;
}

/** A key handed out by {@link WorkQueue.get}, with why and since when it was queued. */
export interface QueueItem {
  /** The key, usually `namespace/name`. */
  readonly key: string;
  /** Every reason the key was queued for since it was last handed out, in first-seen order. */
  readonly reasons: readonly QueueReason[];
  /** Clock time (ms) when the key was queued: the first of the coalesced adds, once its delay had passed. */
  readonly queuedAt: number;
  /** Clock time (ms) when `get` handed the key out. */
  readonly startedAt: number;
  /**
   * The highest priority the key was queued with. Add it again with this priority to keep it
   * across requeues and retries, as controller-runtime does.
   */
  readonly priority: number;
}
