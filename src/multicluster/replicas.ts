/**
 * Clusters spread over an operator's replicas, one Lease per cluster in the operator's namespace
 * (the hub), as the shard coordinator spreads virtual shards (`kubeloop/shards`), with its parts:
 * every replica renews a membership Lease ({@link holdMembership}), reads the Leases every retry
 * period, and campaigns — with a {@link LeaderElector}, so client-go's election semantics guard each
 * cluster — for the free clusters of its fair share ({@link planShards} over the offered clusters in
 * name order), resigning from those beyond it. A cluster given up keeps its Lease renewed until its
 * engagement drained, then releases it; one whose renewals fail past the renew deadline is lost
 * (its writes fenced at once) before another replica may take it. So no two replicas engage one
 * cluster at once. Every replica runs the providers, so all see the same clusters.
 */
import { Lease, type LeaseObject } from "../api/index.ts";
import type { Clock } from "../clock/index.ts";
import {
  defaultElectionTimings,
  defaultIdentity,
  type ElectionPhase,
  type ElectionTimings,
  LeaderElector,
  type LeaderElectorOptions,
  leaseName,
  nameHash,
  ObservedRecord,
  readLeaseRecord,
} from "../election/index.ts";
import {
  holdMembership,
  ownedByPod,
  planShards,
  type ReplicaPod,
  type ShardLeaseClient,
  type ShardLeaseState,
} from "../shards/index.ts";

/** How a fleet's replicas share its clusters: `FleetOptions.replicas`. */
export interface FleetReplicasOptions extends Partial<ElectionTimings> {
  /** A client of the hub, where the Leases are. */
  client: ShardLeaseClient;
  /** Namespace of the Leases: the operator's. */
  namespace: string;
  /** This replica's identity, unique among the replicas. Default {@link defaultIdentity}(). */
  identity?: string;
  /** The pod this replica runs in: it owns the membership Lease (deleted with it). Default none. */
  pod?: ReplicaPod;
  /** Source of the retries' jitter, uniform in [0, 1). Default `Math.random`. */
  random?: () => number;
}

/** What a {@link ClusterCoordinator} needs besides {@link FleetReplicasOptions}. */
export interface ClusterCoordinatorDeps {
  /** The operator's name: prefix of the Leases. */
  name: string;
  clock: Clock;
  /**
   * Runs while this replica holds cluster `name`: engage it, and resolve once `signal` aborted and
   * it is disengaged. `signal` aborts when the cluster is given up (its Lease stays renewed until
   * this resolved) or lost; `lost` aborts when it is lost: fence its writes at once.
   */
  onCluster: (name: string, signal: AbortSignal, lost: AbortSignal) => Promise<void>;
  onError: (error: unknown, phase: ElectionPhase | "list") => void;
}

/** One election this replica runs for a cluster. */
interface Campaign {
  readonly elector: LeaderElector;
  readonly stop: AbortController;
  readonly done: Promise<void>;
}

/** Room for the longest suffix, `-member-<hash>`. */
const suffixRoom = "-member-".length + nameHash("").length;

/** The clusters of one fleet across its replicas; see the module's description. */
export class ClusterCoordinator {
  /** This replica's identity, as written to the Leases. */
  readonly identity: string;
  readonly #options: FleetReplicasOptions & ClusterCoordinatorDeps;
  readonly #prefix: string;
  readonly #campaigns = new Map<string, Campaign>();
  /** What this replica saw of each Lease, and when, by Lease name. */
  readonly #observed = new Map<string, ObservedRecord>();
  /** The clusters the providers offer now. */
  #offered: readonly string[] = [];

  /** Names the Leases `<name>-fleet-cluster-<hash>` and `<name>-fleet-member-<hash>`; starts nothing before {@link run}. */
  constructor(options: FleetReplicasOptions & ClusterCoordinatorDeps) {
    this.#options = options;
    this.identity = options.identity ?? defaultIdentity();
    this.#prefix = `${leaseName(options.name, suffixRoom + "-fleet".length)}-fleet`;
  }

  /** Sets the clusters offered now; one no longer offered is given up at the next look. */
  offer(names: Iterable<string>): void {
    this.#offered = [...new Set(names)].sort();
  }

  /** The clusters whose Lease this replica holds now (those it drains included), by name. */
  held(): string[] {
    return [...this.#campaigns]
      .filter(([, c]) => c.elector.isLeader())
      .map(([name]) => name)
      .sort();
  }

  /**
   * Takes part until `signal` aborts: renews the membership, and every retry period re-plans. On
   * abort it deletes its membership Lease, resigns from every cluster (each released once
   * disengaged), then resolves.
   */
  async run(signal: AbortSignal): Promise<void> {
    const member = this.#holdMembership(signal);
    const period = this.#options.retryPeriodMs ?? defaultElectionTimings.retryPeriodMs;
    while (!signal.aborted) {
      await this.#replan(signal).catch((err: unknown) => this.#report(err, "list"));
      const jitter = (this.#options.random ?? Math.random)() * period;
      await this.#options.clock.sleep(period + jitter, signal).catch(() => {});
    }
    for (const name of this.#campaigns.keys()) this.#resign(name);
    await Promise.all([member, ...[...this.#campaigns.values()].map((c) => c.done)]);
  }

  #holdMembership(signal: AbortSignal): Promise<void> {
    const { pod, client, namespace, clock, renewDeadlineMs } = this.#options;
    const elector = this.#elector(`${this.#prefix}-member-${nameHash(this.identity)}`, () => {}, {
      releaseOnCancel: false,
      ...(pod ? { ownerReferences: [ownedByPod(pod)] } : {}),
    });
    const timeoutMs = renewDeadlineMs ?? defaultElectionTimings.renewDeadlineMs;
    return holdMembership(elector, signal, { client, namespace, clock, timeoutMs }).catch((err: unknown) =>
      this.#report(err, "release"),
    );
  }

  async #replan(signal: AbortSignal): Promise<void> {
    const { items } = await this.#options.client.list(Lease, { namespace: this.#options.namespace, signal });
    const offered = this.#offered;
    const plan = planShards(this.identity, this.#members(items), this.#states(items, offered));
    const claimed = new Set(plan.claim.map((index) => offered[index] as string));
    for (const name of claimed) if (!this.#campaigns.has(name)) this.#campaign(name);
    for (const index of plan.release) this.#resign(offered[index] as string);
    for (const [name, campaign] of this.#campaigns) {
      const keep = campaign.elector.isLeader() ? offered.includes(name) : claimed.has(name);
      if (!keep) this.#resign(name);
    }
  }

  /** The live replicas: holders of unexpired membership Leases (this one always counts). */
  #members(leases: readonly LeaseObject[]): string[] {
    return leases
      .filter((lease) => (lease.metadata.name ?? "").startsWith(`${this.#prefix}-member-`))
      .filter((lease) => !this.#expired(lease))
      .map((lease) => readLeaseRecord(lease).holderIdentity)
      .filter(Boolean);
  }

  /**
   * Each offered cluster's state, by its index in `offered`: what this replica works on counts as
   * held; a Lease naming this replica that it does not work on counts as free, to take back once
   * released.
   */
  #states(leases: readonly LeaseObject[], offered: readonly string[]): ShardLeaseState[] {
    const byName = new Map(leases.map((lease) => [lease.metadata.name, lease]));
    return offered.map((cluster, index) => {
      if (this.#working(cluster)) return { index, holder: this.identity, expired: false };
      const lease = byName.get(this.#leaseOf(cluster));
      const holder = lease ? readLeaseRecord(lease).holderIdentity || undefined : undefined;
      const expired = lease !== undefined && (holder === this.identity || this.#expired(lease));
      return { index, holder, expired };
    });
  }

  /** The Lease of cluster `name` (a hash: a cluster's name need not be a valid Lease name). */
  #leaseOf(name: string): string {
    return `${this.#prefix}-cluster-${nameHash(name)}`;
  }

  /** Whether `lease`'s holder let it expire, by client-go's rule on this replica's clock. */
  #expired(lease: LeaseObject): boolean {
    const record = readLeaseRecord(lease);
    if (!record.holderIdentity) return true;
    const observed = this.#observation(lease.metadata.name ?? "");
    const now = this.#options.clock.monotonicMs();
    observed.observe(record, now);
    return !observed.isValid(now);
  }

  #working(name: string): boolean {
    const campaign = this.#campaigns.get(name);
    return (campaign?.elector.isLeader() ?? false) && !campaign?.stop.signal.aborted;
  }

  #observation(leaseName: string): ObservedRecord {
    const observed = this.#observed.get(leaseName) ?? new ObservedRecord();
    this.#observed.set(leaseName, observed);
    return observed;
  }

  #campaign(name: string): void {
    const elector = this.#elector(this.#leaseOf(name), async (signal, lost) => {
      try {
        await this.#options.onCluster(name, signal, lost);
      } catch (err) {
        this.#report(err, "callback");
        this.#resign(name);
      }
    });
    const stop = new AbortController();
    const done = elector
      .run(stop.signal)
      .catch((err: unknown) => this.#report(err, "acquire"))
      .finally(() => {
        if (this.#campaigns.get(name)?.elector === elector) this.#campaigns.delete(name);
      });
    this.#campaigns.set(name, { elector, stop, done });
  }

  /** Stops the campaign for `name`: a held cluster is disengaged, its Lease renewed until then, then released. */
  #resign(name: string): void {
    this.#campaigns.get(name)?.stop.abort(new Error(`cluster ${name} given up`));
  }

  #elector(
    name: string,
    lead: NonNullable<LeaderElectorOptions["onStartedLeading"]>,
    options: Partial<LeaderElectorOptions> = {},
  ): LeaderElector {
    const { client, namespace, clock, random, leaseDurationMs, renewDeadlineMs, retryPeriodMs, onError } =
      this.#options;
    return new LeaderElector({
      ...options,
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
      observed: this.#observation(name),
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
