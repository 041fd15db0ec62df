/**
 * Virtual shards held across replicas, one Lease each: every replica renews a membership Lease,
 * reads the shard Leases every retry period, and campaigns — with a {@link LeaderElector}, so
 * client-go's election semantics guard each shard — for the free shards of its fair share
 * ({@link planShards}), resigning from the ones beyond it. A shard's work runs while its election
 * is led and must drain before the Lease is released, so no two replicas work on one shard at once.
 */
import { Lease, type LeaseObject } from "../api/index.ts";
import type { ListOptions, ObjectList } from "../client/index.ts";
import { type Clock, systemClock } from "../clock/index.ts";
import {
  defaultIdentity,
  type ElectionPhase,
  type ElectionTimings,
  LeaderElector,
  type LeaseClient,
  ObservedRecord,
  readLeaseRecord,
} from "../election/index.ts";
import { planShards, type ShardLeaseState } from "./plan.ts";
import { type ShardRange, splitHashSpace } from "./ranges.ts";

/** The Lease calls a coordinator makes: the elector's, and a list of its namespace's Leases. */
export interface ShardLeaseClient extends LeaseClient {
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
  /** Prefix of the Leases: `<name>-shard-<index>` and `<name>-member-<identity>`. */
  name: string;
  /** Namespace of the Leases: the operator's. */
  namespace: string;
  /** This replica's identity, unique among the replicas. Default {@link defaultIdentity}(). */
  identity?: string;
  /** How many virtual shards the hash space is split into. Default 32. */
  shards?: number;
  clock?: Clock;
  /** Source of the retries' jitter, uniform in [0, 1). Default `Math.random`. */
  random?: () => number;
  /**
   * Runs while this replica holds `shard`: start its work, and resolve only after `signal` aborted
   * and the work stopped (watches closed, reconciles finished); the Lease is released after that.
   * If it throws, the failure goes to `onError` (phase `callback`) and the shard is released, to be
   * claimed again by whichever replica's plan has room for it.
   */
  onShard: (shard: HeldShard, signal: AbortSignal) => Promise<void>;
  /**
   * Called with each failed API call (retried next period) and each exception a callback throws.
   * Required: a coordinator that cannot reach the apiserver, or whose shard work fails, must say so.
   */
  onError: (error: unknown, phase: ElectionPhase | "list") => void;
}

/** One election this replica runs for a shard. */
interface Campaign {
  readonly elector: LeaderElector;
  readonly stop: AbortController;
  readonly done: Promise<void>;
}

/** The virtual shards of one operator across its replicas; see the module's description. */
export class ShardCoordinator {
  /** This replica's identity, as written to the Leases. */
  readonly identity: string;
  /** How many virtual shards the hash space is split into. */
  readonly shards: number;
  readonly #options: ShardCoordinatorOptions;
  readonly #ranges: readonly ShardRange[];
  readonly #clock: Clock;
  readonly #campaigns = new Map<number, Campaign>();
  /** What this replica saw of each Lease, and when, by Lease name. */
  readonly #observed = new Map<string, ObservedRecord>();
  /** Each shard Lease's last renewal (ms) as last listed, for {@link HeldShard.unownedMs}. */
  readonly #renewed = new Map<number, number>();

  /** Splits the hash space into `options.shards` virtual shards; starts nothing before {@link run}. */
  constructor(options: ShardCoordinatorOptions) {
    this.#options = options;
    this.identity = options.identity ?? defaultIdentity();
    this.#ranges = splitHashSpace(options.shards ?? 32);
    this.shards = this.#ranges.length;
    this.#clock = options.clock ?? systemClock;
  }

  /** The shards this replica works on now, in index order. */
  held(): number[] {
    return [...this.#campaigns]
      .filter(([, c]) => c.elector.isLeader())
      .map(([index]) => index)
      .sort((a, b) => a - b);
  }

  /**
   * Takes part until `signal` aborts: renews the membership, and every retry period re-plans and
   * starts or stops campaigns. On abort it resigns from every shard (each released once its work
   * drained) and from the membership, then resolves.
   */
  async run(signal: AbortSignal): Promise<void> {
    // Nobody else campaigns for this replica's membership Lease: it leads until shutdown, then releases it.
    const membership = this.#elector(`${this.#options.name}-member-${this.identity}`, () => {});
    const member = membership.run(signal).catch((err: unknown) => this.#report(err, "acquire"));
    const period = this.#options.retryPeriodMs ?? 2_000;
    while (!signal.aborted) {
      await this.#replan(signal).catch((err: unknown) => this.#report(err, "list"));
      const jitter = (this.#options.random ?? Math.random)() * period;
      await this.#clock.sleep(period + jitter, signal).catch(() => {});
    }
    for (const index of this.#campaigns.keys()) this.#resign(index);
    await Promise.all([member, ...[...this.#campaigns.values()].map((c) => c.done)]);
  }

  async #replan(signal: AbortSignal): Promise<void> {
    const { items } = await this.#options.client.list(Lease, { namespace: this.#options.namespace, signal });
    const plan = planShards(this.identity, this.#members(items), this.#states(items));
    for (const index of plan.claim) if (!this.#campaigns.has(index)) this.#campaign(index);
    for (const index of plan.release) this.#resign(index);
    // A campaign for a shard another replica won keeps polling its Lease; stop it unless still planned.
    for (const [index, campaign] of this.#campaigns) {
      if (!campaign.elector.isLeader() && !plan.claim.includes(index)) this.#resign(index);
    }
  }

  /** The live replicas: holders of unexpired membership Leases (this one always counts). */
  #members(leases: readonly LeaseObject[]): string[] {
    const prefix = `${this.#options.name}-member-`;
    return leases
      .filter((lease) => lease.metadata.name?.startsWith(prefix) && !this.#expired(lease))
      .map((lease) => readLeaseRecord(lease).holderIdentity)
      .filter(Boolean);
  }

  /**
   * Every shard's state: who the Lease names, and whether it expired (a hint only, by the wall
   * clock: the elector decides with client-go's rules). What this replica leads counts as held
   * whatever the list says; a Lease naming this replica that it does not lead (a restart under
   * the same identity) counts as free, for it to take back.
   */
  #states(leases: readonly LeaseObject[]): ShardLeaseState[] {
    const byName = new Map(leases.map((lease) => [lease.metadata.name, lease]));
    return this.#ranges.map((_, index) => {
      if (this.#campaigns.get(index)?.elector.isLeader())
        return { index, holder: this.identity, expired: false };
      const lease = byName.get(`${this.#options.name}-shard-${index}`);
      const holder = lease ? readLeaseRecord(lease).holderIdentity || undefined : undefined;
      const expired = lease !== undefined && (holder === this.identity || this.#expired(lease));
      const renewed = lease ? Date.parse(readLeaseRecord(lease).renewTime) : Number.NaN;
      if (holder !== this.identity && Number.isFinite(renewed)) this.#renewed.set(index, renewed);
      return { index, holder, expired };
    });
  }

  /**
   * Whether `lease`'s holder let it expire, by client-go's rule on this replica's own clock: its
   * record has not changed for a lease duration since this replica first saw it (each list is a
   * look). The elector of a campaign starts from the same observation.
   */
  #expired(lease: LeaseObject): boolean {
    const record = readLeaseRecord(lease);
    if (!record.holderIdentity) return true;
    const observed = this.#observation(lease.metadata.name ?? "");
    observed.observe(record, this.#clock.monotonicMs());
    return !observed.isValid(this.#clock.monotonicMs());
  }

  #observation(leaseName: string): ObservedRecord {
    const observed = this.#observed.get(leaseName) ?? new ObservedRecord();
    this.#observed.set(leaseName, observed);
    return observed;
  }

  #campaign(index: number): void {
    const range = this.#ranges[index] as ShardRange;
    const elector = this.#elector(`${this.#options.name}-shard-${index}`, async (leading) => {
      try {
        const renewed = this.#renewed.get(index);
        const unownedMs = renewed === undefined ? undefined : Math.max(0, this.#clock.now() - renewed);
        await this.#options.onShard({ index, range, unownedMs }, leading);
      } catch (err) {
        // Holding a shard nobody works on would stall it silently: report, and give it up to be taken again.
        this.#report(err, "callback");
        this.#resign(index);
      }
    });
    // Not following `signal`: on shutdown, run() resigns every campaign itself.
    const stop = new AbortController();
    const done = elector
      .run(stop.signal)
      .catch((err: unknown) => this.#report(err, "acquire"))
      .finally(() => {
        if (this.#campaigns.get(index)?.elector === elector) this.#campaigns.delete(index);
      });
    this.#campaigns.set(index, { elector, stop, done });
  }

  /** Stops the campaign for `index`: a held shard's work is told to stop, and its Lease released after it drained. */
  #resign(index: number): void {
    this.#campaigns.get(index)?.stop.abort(new Error(`shard ${index} resigned`));
  }

  #elector(name: string, lead: (signal: AbortSignal) => void | Promise<void>): LeaderElector {
    const observed = this.#observation(name);
    const { client, namespace, clock, random, leaseDurationMs, renewDeadlineMs, retryPeriodMs, onError } =
      this.#options;
    return new LeaderElector({
      client,
      name,
      namespace,
      identity: this.identity,
      clock,
      random,
      leaseDurationMs,
      renewDeadlineMs,
      retryPeriodMs,
      onStartedLeading: lead,
      observed,
      onError,
    });
  }

  #report(error: unknown, phase: ElectionPhase | "list"): void {
    try {
      this.#options.onError(error, phase);
    } catch {
      // A throwing error hook must not stop the coordinator.
    }
  }
}
