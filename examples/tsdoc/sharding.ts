import { hashBucket, shardHash, shardSelector, splitHashSpace } from "kubeloop/sharding";
import { planShards, type ShardLeaseState } from "kubeloop/shards";

declare const leases: ShardLeaseState[];

// #region shardHash
shardHash(""); // 0xcbf29ce484222325n, the offset basis
// #endregion

// #region planShards
planShards("b", ["a", "b"], leases); // 32 shards: target 16, the free ones to claim, none to release
// #endregion

// #region splitHashSpace
splitHashSpace(2); // [{ start: 0n, end: 2n ** 63n }, { start: 2n ** 63n, end: 2n ** 64n }]
// #endregion

// #region shardSelector
shardSelector("uid", splitHashSpace(2).slice(0, 1));
// "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"
// #endregion

// #region hashBucket
hashBucket(shardHash("default")); // the label value of every object in namespace "default"
// #endregion
