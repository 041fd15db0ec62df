/**
 * @module cache
 *
 * Informers and their stores. An {@link Informer} keeps one watch of one kind and scope
 * (namespace, label/field selectors, optionally metadata only) in a {@link StoreReader} with a
 * namespace index and user-defined indexes, strips `managedFields` and shares repeated strings and
 * metadata records (labels, annotations, owner references) by default, reports a synced signal
 * and its {@link Informer.health}, and fans changes out to handlers. User code it runs (indexers,
 * transform, handlers) never stops it: failures are reported and counted, and a loop
 * that dies anyway restarts with backoff. After every relist, handlers see each object still
 * present as an update, changed or not (client-go's `Replace`).
 *
 * Two timers repair what a watch missed, and they differ. **Resync** (the controller's,
 * `resyncPeriodMs`, 10 h) re-queues every key of the cache without asking the apiserver: it
 * retries reconciles, but cannot heal a cache that is wrong. **Relist** (the informer's,
 * {@link RelistOptions}, every 4 min ± 10 % by default) lists the scope again with a consistent
 * read (no resourceVersion) in pages of 500, compares it with the store by uid and
 * resourceVersion, repairs the store and hands handlers only the differences — an add, update or
 * delete per object the watch missed, counted in `kubeloop_cache_divergence_total{kind,change}` —
 * so a healthy cache hears nothing of it. Objects the watch wrote after the list's resourceVersion
 * are newer than the list and kept.
 *
 * Waiting for a sync rejects on
 * abort and, in {@link InformerCache}, after a sync timeout ({@link CacheSyncTimeoutError}). {@link InformerCache}
 * shares one informer per kind and scope across every controller of a process and serves the
 * cached reads reconcilers make. {@link reflect} and {@link createStore} are the stages it is
 * built from, usable on their own.
 *
 * Not a client: writes go through `kubeloop/client`, and a cache read may be slightly stale
 * (it is as fresh as the watch).
 *
 * @example
 * ```ts
 * const cache = new InformerCache(client);
 * const pods = cache.informer(Pod, { namespace: "default", labelSelector: "app=web" });
 * pods.addHandler({ onAdd: (pod) => console.log("pod", pod.metadata.name) });
 * cache.start(signal);
 * await cache.waitForSync(signal);
 * console.log(pods.store.list().length);
 * ```
 */

export { type BudgetCrossing, BudgetWatch, type CacheBudgets } from "./budgets.ts";
export { type CacheReader, InformerCache, type InformerCacheOptions, readerOf } from "./cache.ts";
export { CostedWriter, estimateBytes } from "./cost.ts";
export {
  CacheSyncTimeoutError,
  InformerStoppedError,
  InvalidCacheBudgetError,
  InvalidRelistOptionsError,
  MissingInformerError,
} from "./errors.ts";
export type { InformerHealth, InformerState } from "./health.ts";
export {
  Informer,
  type InformerCallback,
  type InformerHandler,
  type InformerMetrics,
  type InformerOptions,
  type InformerScope,
} from "./informer.ts";
export { internStrings } from "./intern.ts";
export {
  InvalidSelectorError,
  type LabelSelectorMatcher,
  parseLabelSelector,
  selectorFromLabels,
} from "./labels.ts";
export { defaultOwnWriteWaitMs, OwnWrites, type OwnWriteWait } from "./own-writes.ts";
export {
  type Change,
  reflect,
  stripManagedFields,
  summarizeManagedFields,
  type Transform,
} from "./reflector.ts";
export type { DivergedObject, DivergenceKind, RelistOptions } from "./relist.ts";
export {
  createStore,
  type Indexer,
  type IndexerErrorHandler,
  type StoreReader,
  type StoreWriter,
} from "./store.ts";
