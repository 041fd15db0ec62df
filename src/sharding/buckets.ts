/**
 * Hash buckets: the hash space cut into 256 fixed parts by the top 8 bits of the hash. A shard
 * label holds an object's bucket, which depends on the object alone, never on how many shards the
 * space is split into: the buckets a shard's range overlaps change with the shard count, the
 * labels do not. A range's edge falls inside at most two buckets (none when the count of shards is
 * a power of two up to 256), whose objects are told apart by their full hash.
 */
import { hashSpace, type ShardRange } from "./ranges.ts";

/**
 * The shard label: an object's hash bucket, where the apiserver does not shard its kind (set at
 * creation by the operator's mutating webhook, or by the shard's holder) and on children (their
 * owner's bucket). Replicas select their buckets by it: `kubeloop.dev/shard in (…)`.
 */
export const SHARD_LABEL = "kubeloop.dev/shard";

/** How many buckets the hash space is cut into: 2^8. */
export const bucketCount = 256;

const bucketBits = 56n;
const bucketSize = hashSpace / BigInt(bucketCount);

/**
 * The bucket of `hash`: its top 8 bits, 0 to 255.
 *
 * @example
 * ```ts
 * hashBucket(shardHash("default")); // the label value of every object in namespace "default"
 * ```
 */
export function hashBucket(hash: bigint): number {
  return Number(hash >> bucketBits);
}

/** The buckets `range` overlaps, in order. */
export function bucketsOf(range: ShardRange): number[] {
  const first = Number(range.start / bucketSize);
  const last = Number((range.end - 1n) / bucketSize);
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

/** True when every hash of `bucket` is in `range`: its objects need no check of their full hash. */
export function bucketWithin(bucket: number, range: ShardRange): boolean {
  const start = BigInt(bucket) * bucketSize;
  return start >= range.start && start + bucketSize <= range.end;
}
