/**
 * Shard selectors as the apiserver reads them (`ListOptions.shardSelector`, feature gate
 * `ShardedListAndWatch`, Kubernetes v1.36 alpha, KEP-5866), and the same match done by a client
 * where the apiserver ignores them.
 */
import type { KubeObject } from "../api/index.ts";
import { shardHash } from "./hash.ts";
import { inRanges, mergeRanges, type ShardRange } from "./ranges.ts";

/**
 * The metadata field objects are sharded by: `uid` spreads a kind's objects evenly, `namespace`
 * keeps every object of a namespace on one shard. The two the apiserver supports.
 */
export type ShardKey = "uid" | "namespace";

/** `0x` and 16 hex digits, or `0x10000000000000000` for 2^64, as the apiserver's parser requires. */
function hex(value: bigint): string {
  return `0x${value.toString(16).padStart(16, "0")}`;
}

/**
 * The `shardSelector` of `ranges` (merged first): `shardRange(object.metadata.<key>, '<start>',
 * '<end>')`, joined with `||`.
 *
 * @example
 * ```ts
 * shardSelector("uid", splitHashSpace(2).slice(0, 1));
 * // "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"
 * ```
 */
export function shardSelector(key: ShardKey, ranges: readonly ShardRange[]): string {
  const merged = mergeRanges(ranges);
  if (merged.length === 0) throw new RangeError("a shard selector needs at least one range");
  return merged
    .map(({ start, end }) => `shardRange(object.metadata.${key}, '${hex(start)}', '${hex(end)}')`)
    .join(" || ");
}

/** The hash of `obj`'s `key` field, as the apiserver computes it (an absent field hashes as ""). */
export function objectShardHash(obj: KubeObject, key: ShardKey): bigint {
  return shardHash(obj.metadata[key] ?? "");
}

/** True when `obj` belongs to `ranges`: what a shard selector of them lets through. */
export function inShard(obj: KubeObject, key: ShardKey, ranges: readonly ShardRange[]): boolean {
  return inRanges(objectShardHash(obj, key), ranges);
}

/** What a list or watch of one shard needs: the selector to send, and the check of what arrives. */
export interface ShardFilter {
  /** The shard selector; undefined without a shard. */
  readonly selector: string | undefined;
  /**
   * True when `obj` belongs to the shard (always, without one). One that does not — the server
   * ignored the selector — is reported to `onOutside` and must be dropped.
   */
  keeps(obj: KubeObject): boolean;
}

/**
 * The {@link ShardFilter} of `shard` (hash ranges of a key), or a filter that keeps everything
 * without one: what a watcher and an informer's relist both ask of the server and check again.
 */
export function shardFilter(
  shard: { readonly key: ShardKey; readonly ranges: readonly ShardRange[] } | undefined,
  onOutside: () => void = () => {},
): ShardFilter {
  if (!shard) return { selector: undefined, keeps: () => true };
  return {
    selector: shardSelector(shard.key, shard.ranges),
    keeps: (obj) => {
      if (inShard(obj, shard.key, shard.ranges)) return true;
      onOutside();
      return false;
    },
  };
}
