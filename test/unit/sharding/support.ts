import { inRanges, type ShardRange, shardHash, splitHashSpace } from "../../../src/sharding/index.ts";

/** The lower half of the hash space: the shard the tests watch. */
export const lowHalf = splitHashSpace(2)[0] as ShardRange;

/** The first uid `<prefix>-<i>` whose hash is (or, with `inside` false, is not) in `ranges`. */
export function uidIn(ranges: readonly ShardRange[], inside: boolean, prefix = "uid"): string {
  for (let i = 0; ; i++) {
    const uid = `${prefix}-${i}`;
    if (inRanges(shardHash(uid), ranges) === inside) return uid;
  }
}
