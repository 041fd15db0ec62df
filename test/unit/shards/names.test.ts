/**
 * Every Lease name kubeloop derives — the leader's (`leaseName`), each shard's and each member's
 * — is one the apiserver accepts, whatever the operator's name and the replica's identity: over
 * generated operator names (up to and beyond the 253-character limit) and identities (pod-style
 * `$POD_NAME_$POD_UID`, host names with `_` and a random suffix, `.`, upper case, 300
 * characters), checked against the rule the apiserver applies to Leases.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { defaultIdentity, leaseName } from "../../../src/election/index.ts";
import { ShardLeaseNames } from "../../../src/shards/names.ts";
import { isDnsSubdomain as apiserverAccepts } from "../election/support.ts";

/** A deterministic source of numbers in [0, 1) (mulberry32), so that a failure can be replayed. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:/ é";

function text(random: () => number, length: number): string {
  return Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
}

/** Operator names: valid ones (up to the 253-character limit) and anything else. */
function operatorName(random: () => number): string {
  const length = 1 + Math.floor(random() * 260);
  if (random() < 0.5) return text(random, length);
  const valid = "a".repeat(Math.min(length, 253));
  return random() < 0.5 ? valid : `${valid.slice(0, -1)}z`;
}

/** Identities as replicas have them, and arbitrary text up to 300 characters. */
function identity(random: () => number): string {
  const uid = "0b8e5d6e-1f2a-4c3b-9d8e-7f6a5b4c3d2e";
  const kinds = [
    () => `widgets-operator-7d9c6b5f4-${text(random, 5).toLowerCase()}_${uid}`,
    () => `${text(random, 1 + Math.floor(random() * 64))}_${Math.floor(random() * 2 ** 32).toString(16)}`,
    () => text(random, 1 + Math.floor(random() * 300)),
    () => text(random, 300),
  ];
  return (kinds[Math.floor(random() * kinds.length)] as () => string)();
}

describe("Lease names", () => {
  it("are accepted by the apiserver for any operator name and identity", () => {
    const random = seeded(30);
    const identities = [defaultIdentity(), ...Array.from({ length: 300 }, () => identity(random))];
    for (let i = 0; i < 300; i++) {
      const operator = operatorName(random);
      const names = new ShardLeaseNames(operator);
      const derived = [
        leaseName(operator),
        ...[0, 31, 1023].map((shard) => names.shard(shard)),
        ...identities.slice(i % 50, (i % 50) + 5).map((id) => names.member(id)),
      ];
      for (const name of derived) {
        assert.ok(
          apiserverAccepts(name),
          `operator ${JSON.stringify(operator)} → invalid Lease name ${name}`,
        );
      }
    }
  });

  it("keep a valid operator name as it is, so that Leases keep their names across versions", () => {
    const longest = `w${"x".repeat(251)}s`;
    assert.equal(leaseName("widgets"), "widgets");
    assert.equal(leaseName("widgets.example.com"), "widgets.example.com");
    assert.equal(leaseName(longest), longest);
    const names = new ShardLeaseNames("widgets");
    assert.equal(names.shard(7), "widgets-shard-7-of-32");
    assert.match(names.member("widgets-0_uid"), /^widgets-member-[0-9a-f]{16}-of-32$/);
  });

  it("tell apart operators whose names differ only in what had to be replaced or cut, and identities", () => {
    const random = seeded(9);
    const prefix = "a".repeat(250);
    const operators = [
      "My_Operator",
      "my-operator",
      "my.operator",
      "MY_OPERATOR",
      `${prefix}1`,
      `${prefix}2`,
    ];
    const leader = new Set(operators.map((name) => leaseName(name)));
    assert.equal(leader.size, operators.length);
    const shards = new Set(operators.map((name) => new ShardLeaseNames(name).shard(0)));
    assert.equal(shards.size, operators.length);
    const ids = Array.from({ length: 500 }, () => identity(random));
    const names = new ShardLeaseNames("widgets");
    assert.equal(new Set(ids.map((id) => names.member(id))).size, new Set(ids).size);
  });

  it("recognise the members' Leases of their own operator only", () => {
    const names = new ShardLeaseNames("widgets");
    assert.equal(names.isMember(names.member("a_b")), true);
    assert.equal(names.isMember(names.shard(0)), false);
    assert.equal(names.isMember(new ShardLeaseNames("widgets-2").member("a_b")), false);
  });

  it("name the shard count, and read back the shard of any count's Lease, a name without a count too", () => {
    const names = new ShardLeaseNames("widgets.example.com", 12);
    const other = new ShardLeaseNames("widgets.example.com", 16);
    assert.equal(names.shard(3), "widgets.example.com-shard-3-of-12");
    assert.deepEqual(names.parseShard(other.shard(15)), { index: 15, count: 16 });
    assert.deepEqual(names.parseShard("widgets.example.com-shard-7"), { index: 7, count: undefined });
    for (const name of [
      "widgetsxexample.com-shard-1-of-2",
      "widgets.example.com-shard-x",
      other.member("a"),
    ]) {
      assert.equal(names.parseShard(name), undefined, name);
    }
    assert.equal(names.isPeer(names.member("a")), true);
    assert.equal(names.isPeer(other.member("a")), false);
    assert.equal(names.isMember(other.member("a")), true);
  });
});
