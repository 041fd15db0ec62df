import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../../src/api/index.ts";
import {
  hashSpace,
  inRanges,
  inShard,
  mergeRanges,
  objectShardHash,
  shardHash,
  shardSelector,
  splitHashSpace,
} from "../../../src/sharding/index.ts";

/** FNV-1a 64 the obvious way, in BigInt: the reference the fast version must agree with. */
function referenceHash(value: string): bigint {
  let hash = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(value, "utf8")) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) % hashSpace;
  }
  return hash;
}

const object = (uid: string, namespace?: string): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "x", uid, namespace },
});

describe("shardHash", () => {
  it("is FNV-1a 64 (the published test vectors of Go's hash/fnv)", () => {
    assert.equal(shardHash(""), 0xcbf29ce484222325n);
    assert.equal(shardHash("a"), 0xaf63dc4c8601ec8cn);
    assert.equal(shardHash("foobar"), 0x85944171f73967e8n);
  });

  it("agrees with the BigInt reference on uids, namespaces and multi-byte UTF-8", () => {
    const values = ["kube-system", "ü-ñ-€-🙂", "x".repeat(300)];
    for (let i = 0; i < 500; i++) values.push(crypto.randomUUID());
    for (const value of values) assert.equal(shardHash(value), referenceHash(value), value);
  });
});

describe("hash ranges", () => {
  it("splits the hash space into equal, contiguous shards covering all of it", () => {
    assert.deepEqual(splitHashSpace(2), [
      { start: 0n, end: 1n << 63n },
      { start: 1n << 63n, end: hashSpace },
    ]);
    const three = splitHashSpace(3);
    assert.equal(three[0]?.start, 0n);
    assert.equal(three[2]?.end, hashSpace);
    assert.equal(three[1]?.start, three[0]?.end);
    assert.equal(three[2]?.start, three[1]?.end);
    assert.throws(() => splitHashSpace(0), /at least 1 \(got 0\)/);
    assert.throws(() => splitHashSpace(1.5), /whole number/);
  });

  it("merges ranges that touch or overlap, in order, and keeps gaps", () => {
    const [a, b, c, d] = splitHashSpace(4) as [never, never, never, never];
    assert.deepEqual(mergeRanges([d, a, b]), [
      { start: 0n, end: 1n << 63n },
      { start: 3n << 62n, end: hashSpace },
    ]);
    assert.deepEqual(mergeRanges([c, b, a, d]), [{ start: 0n, end: hashSpace }]);
    assert.deepEqual(mergeRanges([]), []);
  });

  it("places a hash in a range from its start (inclusive) to its end (exclusive)", () => {
    const [low] = splitHashSpace(2);
    assert.ok(low && inRanges(0n, [low]));
    assert.ok(low && inRanges((1n << 63n) - 1n, [low]));
    assert.ok(low && !inRanges(1n << 63n, [low]));
  });
});

describe("shardSelector", () => {
  it("writes the apiserver's syntax: 16 hex digits, 2^64 as 17, merged ranges joined with ||", () => {
    const [a, b, c, d] = splitHashSpace(4) as [never, never, never, never];
    assert.equal(
      shardSelector("uid", [a]),
      "shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000')",
    );
    assert.equal(
      shardSelector("namespace", [d, b, a]),
      "shardRange(object.metadata.namespace, '0x0000000000000000', '0x8000000000000000') || " +
        "shardRange(object.metadata.namespace, '0xc000000000000000', '0x10000000000000000')",
    );
    assert.equal(
      shardSelector("uid", [c, d]),
      "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')",
    );
    assert.throws(() => shardSelector("uid", []), /at least one range/);
  });

  it("matches objects on the client as the selector does on the server", () => {
    const halves = splitHashSpace(2);
    for (let i = 0; i < 50; i++) {
      const obj = object(crypto.randomUUID(), `ns-${i}`);
      const byUid = halves.filter((half) => inShard(obj, "uid", [half]));
      assert.equal(byUid.length, 1, "each object is in exactly one half");
      assert.equal(objectShardHash(obj, "namespace"), shardHash(`ns-${i}`));
    }
    assert.equal(objectShardHash(object("u"), "namespace"), shardHash(""), "no namespace hashes as empty");
  });
});
