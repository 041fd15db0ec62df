/**
 * @module cache
 *
 * Informers and their stores. An {@link Informer} keeps one watch of one kind and scope
 * (namespace, label/field selectors, optionally metadata only) in a {@link StoreReader} with a
 * namespace index and user-defined indexes, strips `managedFields` and shares repeated strings by default, reports a synced
 * signal and its {@link Informer.health}, and fans changes out to handlers. User code it runs
 * (indexers, transform, handlers) never stops it: failures are reported and counted, and a loop
 * that dies anyway restarts with backoff. After every relist, handlers see each object still
 * present as an update, changed or not (client-go's `Replace`). Waiting for a sync rejects on
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
export { type CacheReader, InformerCache, type InformerCacheOptions } from "./cache.ts";
export { CacheSyncTimeoutError } from "./errors.ts";
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
export {
  type Change,
  reflect,
  stripManagedFields,
  summarizeManagedFields,
  type Transform,
} from "./reflector.ts";
export {
  createStore,
  type Indexer,
  type IndexerErrorHandler,
  type StoreReader,
  type StoreWriter,
} from "./store.ts";
