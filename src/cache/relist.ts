/**
 * How an informer's periodic relist is configured, and what it reports. A watch can lose events
 * (a proxy or apiserver bug, a stream that froze without closing); nothing in the watch protocol
 * reveals the loss, so every period the informer lists its scope again — a consistent (quorum)
 * read — and repairs its store where it differs. client-go has no counterpart: its resync only
 * re-delivers the cache to handlers.
 */

/** How often an informer relists its scope to heal its store. */
export interface RelistOptions {
  /**
   * Mean time between two relists, from the first sync on; `0` turns relisting off. Default 30 min:
   * each relist is one paged quorum read of the scope from etcd, costly for a large kind, and a missed
   * event is rare; 30 min bounds how long one goes unrepaired at a load no apiserver notices.
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
