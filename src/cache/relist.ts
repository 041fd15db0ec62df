/**
 * How an informer's periodic relist is configured, and what it reports. A watch can lose events
 * (a proxy or apiserver bug, a stream that froze without closing); little in the watch protocol
 * reveals the loss (the watcher notices only a silence longer than a bookmark interval), so every
 * period the informer lists its scope again — a consistent (quorum) read — and repairs its store
 * where it differs. client-go has no counterpart: its resync only
 * re-delivers the cache to handlers.
 */

/** How often an informer relists its scope to heal its store. */
export interface RelistOptions {
  /**
   * Mean time between two relists, from the first sync on; `0` turns relisting off. Default 4 min,
   * so that an event the watch lost is repaired within 5 minutes even when nothing else can notice
   * the loss (the watch's gap detection catches only a silence longer than a bookmark interval, and
   * a kind that does not change sends no bookmark). Each relist is a consistent read in pages,
   * served from the watch cache (Kubernetes ≥ 1.31): measured with `bench/relist.ts`, one relist of
   * 5,000 ConfigMaps of 1 KiB costs the apiserver about 0.1 s of CPU and 7 MiB, of 50,000 about
   * 1.7 s and 72 MiB — every 4 min, 0.05 % and 0.7 % of a core. Raise it for very large kinds.
   */
  periodMs?: number;
  /**
   * Each wait is drawn uniformly in `periodMs × (1 ± jitter)`, so that the informers of many
   * processes (every replica restarted by one rollout) do not list at once. Default 0.1.
   */
  jitter?: number;
}

/** What a relist found the watch missed: an object to add, to update or to delete. */
export type DivergenceKind = "added" | "updated" | "deleted";

/** An object a periodic relist found the watch had missed, by key, as {@link InformerOptions.onDiverged} hears of it. */
export interface DivergedObject {
  readonly change: DivergenceKind;
  /** `namespace/name`, or `name` for a cluster-scoped object. */
  readonly key: string;
}
