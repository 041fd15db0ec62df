/**
 * Ranges of the 64-bit hash space: the virtual shards it is split into, and the merged ranges a
 * replica watches.
 */

/** The size of the hash space, 2^64: the exclusive end of the last range. */
export const hashSpace = 1n << 64n;

/** The hashes from `start` (inclusive) to `end` (exclusive). */
export interface ShardRange {
  readonly start: bigint;
  readonly end: bigint;
}

/**
 * The hash space split into `count` ranges of equal size (the last one takes the remainder), in
 * order: virtual shard `i` is `ranges[i]`.
 *
 * @example
 * ```ts
 * splitHashSpace(2); // [{ start: 0n, end: 2n ** 63n }, { start: 2n ** 63n, end: 2n ** 64n }]
 * ```
 */
export function splitHashSpace(count: number): ShardRange[] {
  if (!Number.isInteger(count) || count < 1) {
    throw new RangeError(`a hash space splits into a whole number of shards, at least 1 (got ${count})`);
  }
  return Array.from({ length: count }, (_, i) => shardRange(i, count));
}

/**
 * Virtual shard `index` of the hash space split into `count` (`splitHashSpace(count)[index]`,
 * without making the others).
 */
export function shardRange(index: number, count: number): ShardRange {
  const size = hashSpace / BigInt(count);
  return { start: size * BigInt(index), end: index === count - 1 ? hashSpace : size * BigInt(index + 1) };
}

/** True when `a` and `b` share a hash. */
export function overlaps(a: ShardRange, b: ShardRange): boolean {
  return a.start < b.end && b.start < a.end;
}

/** `ranges` sorted, with ranges that touch or overlap joined: the fewest ranges covering the same hashes. */
export function mergeRanges(ranges: readonly ShardRange[]): ShardRange[] {
  const sorted = [...ranges].sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  const merged: ShardRange[] = [];
  for (const range of sorted) {
    const last = merged.at(-1);
    if (last && range.start <= last.end) {
      merged[merged.length - 1] = { start: last.start, end: range.end > last.end ? range.end : last.end };
    } else {
      merged.push(range);
    }
  }
  return merged;
}

/** True when `hash` falls in one of `ranges`. */
export function inRanges(hash: bigint, ranges: readonly ShardRange[]): boolean {
  return ranges.some((range) => hash >= range.start && hash < range.end);
}
