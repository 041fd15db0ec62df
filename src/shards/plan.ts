/**
 * Which virtual shards a replica should hold: its fair share of them among the live replicas,
 * computed the same way by every replica from the same view (the shards' Leases and the members),
 * so that their shares add up to every shard without talking to each other.
 */

/** One virtual shard's Lease, as last read. */
export interface ShardLeaseState {
  /** The shard's index in the split of the hash space. */
  readonly index: number;
  /** The replica holding it; undefined when it was released or never held. */
  readonly holder: string | undefined;
  /** True when its holder stopped renewing it for longer than the lease duration. */
  readonly expired: boolean;
}

/** What {@link planShards} decides for one replica. */
export interface ShardPlan {
  /** How many shards this replica should hold. */
  readonly target: number;
  /** Shards this replica holds (unexpired), in index order. */
  readonly held: readonly number[];
  /** Free shards (released, never held, or expired) to try to take, in the order to try them. */
  readonly claim: readonly number[];
  /** Held shards to give up (after their work drained), beyond the target. */
  readonly release: readonly number[];
}

/**
 * The fair share of `identity` among `members` (the live replicas; `identity` counts even when
 * absent): every replica gets ⌊shards / members⌋, and the first `shards mod members` replicas in
 * identity order one more. Free shards are tried from an offset that depends on the replica's
 * rank, so replicas that start together mostly try different shards.
 *
 * @example
 * ```ts
 * planShards("b", ["a", "b"], leases); // 32 shards: target 16, the free ones to claim, none to release
 * ```
 */
export function planShards(
  identity: string,
  members: readonly string[],
  shards: readonly ShardLeaseState[],
): ShardPlan {
  const ranked = [...new Set([...members, identity])].sort();
  const rank = ranked.indexOf(identity);
  const count = shards.length;
  const target = Math.floor(count / ranked.length) + (rank < count % ranked.length ? 1 : 0);
  const held = shards
    .filter((s) => s.holder === identity && !s.expired)
    .map((s) => s.index)
    .sort((a, b) => a - b);
  const free = shards.filter((s) => s.holder === undefined || s.expired).map((s) => s.index);
  const offset = Math.floor((rank * count) / ranked.length);
  const rotated = [...free].sort((a, b) => ((a - offset + count) % count) - ((b - offset + count) % count));
  return {
    target,
    held,
    claim: rotated.slice(0, Math.max(0, target - held.length)),
    release: held.slice(target),
  };
}
