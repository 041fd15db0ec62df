/**
 * The names of a sharded operator's Leases: `<prefix>-shard-<index>` for each virtual shard and
 * `<prefix>-member-<hash of the identity>` for each replica, valid Lease names whatever the
 * operator's name and the replicas' identities (a pod's `$POD_NAME_$POD_UID`, a host name with
 * `_`, upper case, any length): the prefix is the operator's name made a valid Lease name, and
 * the identity itself is kept in the Lease's `holderIdentity`.
 */
import { leaseName, nameHash } from "../election/index.ts";

const shardInfix = "-shard-";
const memberInfix = "-member-";
/** Room left after the prefix: the member suffix (8 + 16 characters), longer than any shard's. */
const suffixRoom = memberInfix.length + nameHash("").length;

/** The Lease names of the shards and members of one sharded operator. */
export class ShardLeaseNames {
  readonly #prefix: string;

  /** Names for the operator (or Lease prefix) `name`; a valid Lease name is kept as the prefix. */
  constructor(name: string) {
    this.#prefix = leaseName(name, suffixRoom);
  }

  /** The Lease of virtual shard `index`. */
  shard(index: number): string {
    return `${this.#prefix}${shardInfix}${index}`;
  }

  /** The membership Lease of the replica `identity`. */
  member(identity: string): string {
    return `${this.#prefix}${memberInfix}${nameHash(identity)}`;
  }

  /** Whether `name` is one of these replicas' membership Leases. */
  isMember(name: string): boolean {
    return name.startsWith(`${this.#prefix}${memberInfix}`);
  }
}
