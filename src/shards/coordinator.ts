/**
 * Virtual shards held across replicas, one Lease each: every replica renews a membership Lease,
 * reads the shard Leases every retry period, and campaigns — with a {@link LeaderElector}, so
 * client-go's election semantics guard each shard — for the free shards of its fair share
 * ({@link planShards}), resigning from the ones beyond it. A shard given up keeps its Lease
 * renewed until its work drained, then releases it; one whose renewals fail past the renew
 * deadline is lost (its work told to stop writing) before another replica may take it. So no two
 * replicas work on one shard at once.
 *
 * While a rolling update changes the shard count, replicas of two counts run: their shards are
 * different parts of the hash space, with Leases of their own ({@link ShardLeaseNames}). A replica
 * shares with the replicas of its own count only, leaves alone every shard of its count that a
 * held Lease of the other count overlaps, and, having taken a shard, works on it only if a list of
 * the Leases read after taking it shows no such overlap (else it gives the shard back at once).
 * Of two replicas taking overlapping shards, the one whose Lease was written later lists after both
 * writes and gives way; both may, and take again a retry period later. So no hash is worked on
 * under two counts at once, and the new count's replicas take over as the old ones leave. Once
 * nobody holds them (released, or expired), the other count's Leases are deleted by whichever
 * replica sees that first, so a finished rollout leaves none behind.
 */
import { Lease, type LeaseObject } from "../api/index.ts";
import { ConflictError, type ListOptions, NotFoundError, type ObjectList } from "../client/index.ts";
import { type Clock, systemClock } from "../clock/index.ts";
import {
  defaultIdentity,
  type ElectionPhase,
  type ElectionTimings,
  type LeaseClient,
  readLeaseRecord,
} from "../election/index.ts";
import { hashSpace, overlaps, type ShardRange, shardRange, splitHashSpace } from "../sharding/index.ts";
import { LeaseCampaigns } from "./campaigns.ts";
import type { LeaseDeleteClient, ReplicaPod } from "./membership.ts";
import { ShardLeaseNames } from "./names.ts";
import { planShards, type ShardLeaseState } from "./plan.ts";

/**
 * The Lease calls a coordinator makes: the elector's, a list of its namespace's Leases, and the
 * deletion of its membership Lease on a clean stop.
 */
export interface ShardLeaseClient extends LeaseClient, LeaseDeleteClient {
  list(type: typeof Lease, opts: ListOptions): Promise<ObjectList<LeaseObject>>;
}

/** A virtual shard this replica holds. */
export interface HeldShard {
  readonly index: number;
  /** Its part of the hash space. */
  readonly range: ShardRange;
  /**
   * How long the shard had gone without a working owner when this replica took it: since its
   * previous holder last renewed (or released) its Lease, as last listed. Undefined when unknown.
   */
  readonly unownedMs?: number;
}

/** Options of a {@link ShardCoordinator}. */
export interface ShardCoordinatorOptions extends Partial<ElectionTimings> {
  client: ShardLeaseClient;
  /**
   * Prefix of the Leases: `<name>-shard-<index>-of-<shards>` and `<name>-member-<hash of the identity>-of-<shards>`
   * ({@link ShardLeaseNames}: a name that is no valid Lease name is made one).
   */
  name: string;
  /** Namespace of the Leases: the operator's. */
  namespace: string;
  /** This replica's identity, unique among the replicas, kept in `holderIdentity`. Default {@link defaultIdentity}(). */
  identity?: string;
  /**
   * The pod this replica runs in, in the Leases' namespace: its membership Lease is owned by it,
   * so that garbage collection deletes the Lease with the pod when the replica dies without
   * stopping cleanly. Default none (the Lease only expires).
   */
  pod?: ReplicaPod;
  /** How many virtual shards the hash space is split into. Default 32. */
  shards?: number;
  clock?: Clock;
  /** Source of the retries' jitter, uniform in [0, 1). Default `Math.random`. */
  random?: () => number;
  /**
   * Runs while this replica holds `shard`: start its work, and resolve only after `signal` aborted
   * and the work stopped (watches closed, reconciles finished). `signal` aborts when the shard is
   * given up (rebalance, shutdown) or lost: given up, the work drains while the Lease stays
   * renewed, and the Lease is released once this resolved. `lost` aborts when the shard is lost
   * (no renewal within the renew deadline of the last successful one, while draining too, or
   * another holder): stop writing at once, another replica may take it a lease duration after the
   * last renewal. If it throws, the failure goes to `onError` (phase `callback`) and the shard is
   * released, to be claimed again by whichever replica's plan has room for it.
   */
  onShard: (shard: HeldShard, signal: AbortSignal, lost: AbortSignal) => Promise<void>;
  /**
   * Called with each failed API call (retried next period) and each exception a callback throws.
   * Required: a coordinator that cannot reach the apiserver, or whose shard work fails, must say so.
   */
  onError: (error: unknown, phase: ElectionPhase | "list") => void;
  /**
   * Told when the shards of this count that held Leases of another count overlap (a rolling update
   * changing the count) change: their indices and holders, both empty once none does. Default none.
   */
  onOtherCount?: (wait: OtherCountWait) => void;
}

/** Shards of this count waiting for replicas of another count to release what overlaps them. */
export interface OtherCountWait {
  readonly shards: readonly number[];
  readonly holders: readonly string[];
}

/** The virtual shards of one operator across its replicas; see the module's description. */
export class ShardCoordinator {
  /** This replica's identity, as written to the Leases. */
  readonly identity: string;
  /** How many virtual shards the hash space is split into. */
  readonly shards: number;
  readonly #options: ShardCoordinatorOptions;
  readonly #names: ShardLeaseNames;
  readonly #ranges: readonly ShardRange[];
  readonly #clock: Clock;
  readonly #campaigns: LeaseCampaigns<number>;
  /** Each shard Lease's last renewal (ms) as last listed, for {@link HeldShard.unownedMs}. */
  readonly #renewed = new Map<number, number>();
  /** The last list of the Leases made to check shards just taken ({@link ShardCoordinator.#listAfter}). */
  #listing: { readonly sentAt: number; readonly items: Promise<LeaseObject[]> } | undefined;
  /** What {@link ShardCoordinatorOptions.onOtherCount} was last told, as `shards/holders`. */
  #otherCount = "/";

  /** Splits the hash space into `options.shards` virtual shards; starts nothing before {@link run}. */
  constructor(options: ShardCoordinatorOptions) {
    this.#options = options;
    this.identity = options.identity ?? defaultIdentity();
    this.#names = new ShardLeaseNames(options.name, options.shards ?? 32);
    this.shards = this.#names.shards;
    this.#ranges = splitHashSpace(this.shards);
    this.#clock = options.clock ?? systemClock;
    this.#campaigns = new LeaseCampaigns({ ...options, identity: this.identity, clock: this.#clock });
  }

  /** The shards whose Lease this replica holds now (those it drains included), in index order. */
  held(): number[] {
    return this.#campaigns.held().sort((a, b) => a - b);
  }

  /**
   * Takes part until `signal` aborts: renews the membership, and every retry period re-plans and
   * starts or stops campaigns. On abort it deletes its membership Lease, resigns from every shard
   * (each released once its work drained), then resolves.
   */
  run(signal: AbortSignal): Promise<void> {
    return this.#campaigns.run(signal, this.#names.member(this.identity), (s) => this.#replan(s));
  }

  async #replan(signal: AbortSignal): Promise<void> {
    const { items } = await this.#options.client.list(Lease, { namespace: this.#options.namespace, signal });
    const overlapped = this.#overlapped(items);
    this.#tellOtherCount(overlapped);
    const plan = planShards(this.identity, this.#members(items), this.#states(items, overlapped));
    for (const index of plan.claim) if (!this.#campaigns.has(index)) this.#campaign(index);
    for (const index of plan.release) this.#resign(index);
    // A campaign for a shard another replica won keeps polling its Lease; stop it unless still planned.
    for (const [index, leader] of this.#campaigns.campaigning()) {
      if (!leader && !plan.claim.includes(index)) this.#resign(index);
    }
    await this.#sweep(items, signal);
  }

  /** Tells {@link ShardCoordinatorOptions.onOtherCount} which shards another count holds, when that changed. */
  #tellOtherCount(overlapped: ReadonlyMap<number, string>): void {
    const shards = [...overlapped.keys()].sort((a, b) => a - b);
    const wait = { shards, holders: [...new Set(overlapped.values())].sort() };
    const key = `${shards}/${wait.holders}`;
    if (key === this.#otherCount) return;
    this.#otherCount = key;
    this.#options.onOtherCount?.(wait);
  }

  /**
   * Deletes the Leases of other shard counts that nobody holds: released, or expired with a holder
   * that has no live membership Lease (a replica gone for good; an alive one merely late to renew
   * keeps its Lease). On the version listed: one renewed or taken since is a 409, one another
   * replica deleted first a 404, both expected.
   */
  async #sweep(leases: readonly LeaseObject[], signal: AbortSignal): Promise<void> {
    const { client, namespace } = this.#options;
    const alive = new Set(
      leases
        .filter((lease) => this.#names.isMember(lease.metadata.name ?? "") && !this.#campaigns.expired(lease))
        .map((lease) => readLeaseRecord(lease).holderIdentity),
    );
    for (const lease of leases) {
      const { name = "", resourceVersion } = lease.metadata;
      const holder = readLeaseRecord(lease).holderIdentity;
      if (!this.#names.isOtherCount(name) || !this.#campaigns.expired(lease) || alive.has(holder)) continue;
      await client
        .delete(Lease, name, { namespace, preconditions: { resourceVersion }, signal })
        .catch((err: unknown) => {
          if (!(err instanceof NotFoundError || err instanceof ConflictError))
            this.#campaigns.report(err, "release");
        });
    }
  }

  /** The live replicas of this shard count: holders of unexpired membership Leases (this one always counts). */
  #members(leases: readonly LeaseObject[]): string[] {
    return leases
      .filter((lease) => this.#names.isPeer(lease.metadata.name ?? "") && !this.#campaigns.expired(lease))
      .map((lease) => readLeaseRecord(lease).holderIdentity)
      .filter(Boolean);
  }

  /**
   * Every shard's state: who the Lease names, and whether it expired (a hint only, by the wall
   * clock: the elector decides with client-go's rules). What this replica leads and has not given
   * up counts as held whatever the list says; a Lease naming this replica that it does not work on
   * (given up and draining, or a restart under the same identity) counts as free, for it to take
   * back once released. A shard `overlapped` counts as held by the other count's holder.
   */
  #states(leases: readonly LeaseObject[], overlapped: ReadonlyMap<number, string>): ShardLeaseState[] {
    const byName = new Map(leases.map((lease) => [lease.metadata.name, lease]));
    return this.#ranges.map((_, index) => {
      if (this.#campaigns.working(index)) return { index, holder: this.identity, expired: false };
      const other = overlapped.get(index);
      if (other !== undefined) return { index, holder: other, expired: false };
      const lease = byName.get(this.#names.shard(index));
      const holder = lease ? readLeaseRecord(lease).holderIdentity || undefined : undefined;
      const expired = lease !== undefined && (holder === this.identity || this.#campaigns.expired(lease));
      const renewed = lease ? Date.parse(readLeaseRecord(lease).renewTime) : Number.NaN;
      if (holder !== this.identity && Number.isFinite(renewed)) this.#renewed.set(index, renewed);
      return { index, holder, expired };
    });
  }

  /**
   * The shards of this count that a held, unexpired shard Lease of another count overlaps, with
   * that Lease's holder. A shard Lease named without a count overlaps them all.
   */
  #overlapped(leases: readonly LeaseObject[]): Map<number, string> {
    const overlapped = new Map<number, string>();
    for (const lease of leases) {
      const shard = this.#names.parseShard(lease.metadata.name ?? "");
      if (!shard || shard.count === this.shards) continue;
      const holder = readLeaseRecord(lease).holderIdentity;
      if (!holder || this.#campaigns.expired(lease)) continue;
      const theirs =
        shard.count === undefined ? { start: 0n, end: hashSpace } : shardRange(shard.index, shard.count);
      this.#ranges.forEach((ours, index) => {
        if (overlaps(ours, theirs)) overlapped.set(index, holder);
      });
    }
    return overlapped;
  }

  /**
   * Whether shard `index`, just taken, overlaps a held shard of another count in a list read now:
   * then this replica must give it back without working on it.
   */
  async #mustYield(index: number): Promise<boolean> {
    try {
      return this.#overlapped(await this.#listAfter(this.#clock.monotonicMs())).has(index);
    } catch (err) {
      this.#campaigns.report(err, "list");
      return true;
    }
  }

  /**
   * The Leases as listed by a request sent at or after `since` (monotonic ms): shards taken
   * together share one list (so no one shard's signal aborts it).
   */
  #listAfter(since: number): Promise<LeaseObject[]> {
    if (!this.#listing || this.#listing.sentAt < since) {
      const items = this.#options.client
        .list(Lease, { namespace: this.#options.namespace })
        .then((list) => list.items);
      this.#listing = { sentAt: this.#clock.monotonicMs(), items };
    }
    return this.#listing.items;
  }

  #campaign(index: number): void {
    const range = this.#ranges[index] as ShardRange;
    this.#campaigns.campaign(index, this.#names.shard(index), async (signal, lost) => {
      if (await this.#mustYield(index)) {
        this.#resign(index);
        return;
      }
      const renewed = this.#renewed.get(index);
      const unownedMs = renewed === undefined ? undefined : Math.max(0, this.#clock.now() - renewed);
      await this.#options.onShard({ index, range, unownedMs }, signal, lost);
    });
  }

  /** Stops the campaign for `index`: a held shard's work is told to stop, its Lease renewed until it drained, then released. */
  #resign(index: number): void {
    this.#campaigns.resign(index);
  }
}
