/**
 * Sharding by hash range, as the apiserver shards lists and watches (`shardSelector`, Kubernetes
 * v1.36 alpha, feature gate `ShardedListAndWatch`): the 64-bit FNV-1a hash of an object's
 * `metadata.uid` or `metadata.namespace`, ranges of that hash space, the selector string, and the
 * same match on the client for servers that ignore the selector.
 *
 * @example
 * ```ts
 * import { inShard, shardSelector, splitHashSpace } from "kubeloop/sharding";
 * const [mine] = splitHashSpace(2);
 * const page = await client.listPage(Widget, { shardSelector: shardSelector("uid", [mine]) });
 * // page.shardInfo absent: the server ignored the selector; keep only what inShard(obj, "uid", [mine]) says
 * ```
 */
export { shardHash } from "./hash.ts";
export { hashSpace, inRanges, mergeRanges, type ShardRange, splitHashSpace } from "./ranges.ts";
export { inShard, objectShardHash, type ShardKey, shardSelector } from "./selector.ts";
export { planShards, type ShardLeaseState, type ShardPlan } from "./plan.ts";
