/**
 * The names of a sharded operator's Leases: `<prefix>-shard-<index>-of-<count>` for each virtual
 * shard and `<prefix>-member-<hash of the identity>-of-<count>` for each replica, valid Lease names
 * whatever the operator's name and the replicas' identities (a pod's `$POD_NAME_$POD_UID`, a host
 * name with `_`, upper case, any length): the prefix is the operator's name made a valid Lease
 * name, and the identity itself is kept in the Lease's `holderIdentity`. The shard count is in
 * both, because shard 3 of 12 and shard 3 of 16 are different parts of the hash space: while a
 * rolling update changes `--shards`, replicas of both counts run, and each must tell which of the
 * other's Leases overlap its own (a name without a count, from a kubeloop before counts were
 * named, is read as holding every hash).
 */
import { leaseName, nameHash } from "../election/index.ts";

const shardInfix = "-shard-";
const memberInfix = "-member-";
/** Room left after the prefix: the member suffix (8 + 16 + up to 4 + 5 characters), longer than any shard's. */
const suffixRoom = memberInfix.length + nameHash("").length + "-of-99999".length;

/** What a shard Lease's name says: its index, and the count it is of (undefined in a name without one). */
export interface ShardLeaseName {
  readonly index: number;
  readonly count: number | undefined;
}

/** The Lease names of the shards and members of one sharded operator split into `shards` shards. */
export class ShardLeaseNames {
  readonly #prefix: string;
  readonly #of: string;
  readonly #shardPattern: RegExp;

  /** Names for the operator (or Lease prefix) `name`; a valid Lease name is kept as the prefix. */
  constructor(
    name: string,
    readonly shards = 32,
  ) {
    this.#prefix = leaseName(name, suffixRoom);
    this.#of = `-of-${shards}`;
    const escaped = this.#prefix.replace(/[.]/g, "\\.");
    this.#shardPattern = new RegExp(`^${escaped}${shardInfix}(\\d+)(?:-of-(\\d+))?$`);
  }

  /** The Lease of virtual shard `index`. */
  shard(index: number): string {
    return `${this.#prefix}${shardInfix}${index}${this.#of}`;
  }

  /** The membership Lease of the replica `identity`. */
  member(identity: string): string {
    return `${this.#prefix}${memberInfix}${nameHash(identity)}${this.#of}`;
  }

  /** Whether `name` is the membership Lease of one of these replicas, of any shard count. */
  isMember(name: string): boolean {
    return name.startsWith(`${this.#prefix}${memberInfix}`);
  }

  /** Whether `name` is the membership Lease of a replica splitting into as many shards as this one. */
  isPeer(name: string): boolean {
    return this.isMember(name) && name.endsWith(this.#of);
  }

  /** Whether `name` is a shard or membership Lease of another shard count (or of none: an older kubeloop's shard name). */
  isOtherCount(name: string): boolean {
    const shard = this.parseShard(name);
    return shard ? shard.count !== this.shards : this.isMember(name) && !this.isPeer(name);
  }

  /** The shard `name` is the Lease of, under any shard count; undefined for any other Lease. */
  parseShard(name: string): ShardLeaseName | undefined {
    const match = this.#shardPattern.exec(name);
    if (!match) return undefined;
    return { index: Number(match[1]), count: match[2] === undefined ? undefined : Number(match[2]) };
  }
}
