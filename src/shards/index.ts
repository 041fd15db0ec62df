/**
 * @module shards
 *
 * An operator's controllers run across its replicas, shard by shard: the virtual shards of the
 * hash space held across the replicas through one Lease each ({@link ShardCoordinator}, a fair
 * share per live replica, client-go's election semantics per shard), and what a sharded manager
 * runs on each shard it holds ({@link ShardRunner}): the operator's setup on a cache of that
 * shard alone, its controllers with writes fenced by the shard's Lease, watches of the shards
 * held merged into one per kind. The manager's `sharding` option ({@link ShardingOptions}) turns
 * it on.
 *
 * Not for: the hash, its ranges and the shard selector (`kubeloop/sharding`, the math this builds
 * on), nor a single leader (`kubeloop/election`).
 *
 * @example
 * ```ts
 * const coordinator = new ShardCoordinator({
 *   client,
 *   name: "widgets",
 *   namespace: "widgets-system",
 *   shards: 16,
 *   onShard: (_shard, signal) => untilAborted(signal), // work on the shard's range until given up
 *   onError: (err, phase) => console.error(phase, err),
 * });
 * await coordinator.run(signal);
 * ```
 */

export { LeaseCampaigns, type LeaseCampaignsOptions } from "./campaigns.ts";
export {
  type HeldShard,
  type OtherCountWait,
  ShardCoordinator,
  type ShardCoordinatorOptions,
  type ShardLeaseClient,
} from "./coordinator.ts";
export { OutsideShardReadError } from "./errors.ts";
export type { LeaseDeleteClient, ReplicaPod } from "./membership.ts";
export { ShardLeaseNames } from "./names.ts";
export { SHARD_LABEL, type ShardingOptions } from "./placement.ts";
export { planShards, type ShardLeaseState, type ShardPlan } from "./plan.ts";
export {
  type Setup,
  ShardRunner,
  type ShardRunnerMetrics,
  type ShardRunnerOptions,
} from "./runner.ts";
