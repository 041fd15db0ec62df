/**
 * The hash the apiserver shards by: 64-bit FNV-1a of a metadata field's UTF-8 bytes, as
 * `k8s.io/apimachinery/pkg/sharding.HashField` computes it (Go's `hash/fnv` New64a).
 */

const offsetHigh = 0xcbf29ce4;
const offsetLow = 0x84222325;
/** The FNV prime 2^40 + 0x1b3, split: multiplying by it is a shift by 40 bits plus a small product. */
const primeLow = 0x1b3;
const twoTo32 = 2 ** 32;

/**
 * FNV-1a 64 of `value`'s UTF-8 bytes. Computed on two 32-bit halves in plain numbers (every
 * intermediate stays below 2^53), then joined: BigInt arithmetic per byte costs ~10× more, and a
 * client filtering its shard hashes every watch event.
 *
 * @example
 * ```ts
 * shardHash(""); // 0xcbf29ce484222325n, the offset basis
 * ```
 */
export function shardHash(value: string): bigint {
  let high = offsetHigh;
  let low = offsetLow;
  for (const byte of Buffer.from(value, "utf8")) {
    low = (low ^ byte) >>> 0;
    const lowProduct = low * primeLow;
    const carry = Math.floor(lowProduct / twoTo32);
    // (high·2^32 + low) · (2^40 + 0x1b3) mod 2^64: low·2^40 lands in the high half as low·2^8.
    high = (high * primeLow + carry + low * 256) % twoTo32;
    low = lowProduct % twoTo32;
  }
  return (BigInt(high) << 32n) | BigInt(low);
}
