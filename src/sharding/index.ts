/**
 * @module sharding
 *
 * Sharding by hash range, as the apiserver shards lists and watches (`shardSelector`, Kubernetes
 * v1.36 alpha, feature gate `ShardedListAndWatch`): the 64-bit FNV-1a hash of an object's
 * `metadata.uid` or `metadata.namespace`, ranges of that hash space, the selector string, the
 * same match on the client for servers that ignore the selector, and the fixed hash buckets a
 * shard label holds where they do.
 *
 * Not for: holding shards across an operator's replicas and running controllers on them
 * (`kubeloop/shards`, which builds on this math).
 *
 * @example
 * ```ts
 * const mine = splitHashSpace(2).slice(0, 1); // the first of two halves
 * const page = await client.listPage(ConfigMap, { shardSelector: shardSelector("uid", mine) });
 * // Without shardInfo the server ignored the selector (feature gate off): filter on the client.
 * const items = page.shardInfo ? page.items : page.items.filter((o) => inShard(o, "uid", mine));
 * ```
 */

export { bucketCount, bucketsOf, bucketWithin, hashBucket, SHARD_LABEL } from "./buckets.ts";
export { shardHash } from "./hash.ts";
export {
  hashSpace,
  inRanges,
  mergeRanges,
  overlaps,
  type ShardRange,
  shardRange,
  splitHashSpace,
} from "./ranges.ts";
export {
  inShard,
  objectShardHash,
  type ShardFilter,
  type ShardKey,
  shardFilter,
  shardSelector,
} from "./selector.ts";
