/**
 * Clusters spread over an operator's replicas, one Lease per cluster in the operator's namespace
 * (the hub), as the shard coordinator spreads virtual shards (`kubeloop/shards`), with its parts:
 * every replica renews a membership Lease, reads the Leases every retry period, and campaigns —
 * with a {@link LeaseCampaigns}' electors, so client-go's election semantics guard each cluster —
 * for the free clusters of its fair share ({@link planShards} over the offered clusters in name
 * order), resigning from those beyond it. A cluster given up keeps its Lease renewed until its
 * engagement drained, then releases it; one whose renewals fail past the renew deadline is lost
 * (its writes fenced at once) before another replica may take it. So no two replicas engage one
 * cluster at once. Every replica runs the providers, so all see the same clusters.
 */
import { Lease, type LeaseObject } from "../api/index.ts";
import type { Clock } from "../clock/index.ts";
import {
  defaultIdentity,
  type ElectionPhase,
  type ElectionTimings,
  leaseName,
  nameHash,
  readLeaseRecord,
} from "../election/index.ts";
import {
  LeaseCampaigns,
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

/** Room for the longest suffix, `-fleet-member-<hash>`. */
const suffixRoom = "-fleet-member-".length + nameHash("").length;

/** The clusters of one fleet across its replicas; see the module's description. */
export class ClusterCoordinator {
  /** This replica's identity, as written to the Leases. */
  readonly identity: string;
  readonly #options: FleetReplicasOptions & ClusterCoordinatorDeps;
  /** Leases `<prefix>-cluster-<hash of the cluster>` and `<prefix>-member-<hash of the identity>`. */
  readonly #prefix: string;
  readonly #campaigns: LeaseCampaigns<string>;
  /** The clusters the providers offer now, by name. */
  #offered: readonly string[] = [];

  /** Names the Leases after the operator; starts nothing before {@link run}. */
  constructor(options: FleetReplicasOptions & ClusterCoordinatorDeps) {
    this.#options = options;
    this.identity = options.identity ?? defaultIdentity();
    this.#prefix = `${leaseName(options.name, suffixRoom)}-fleet`;
    this.#campaigns = new LeaseCampaigns({ ...options, identity: this.identity });
  }

  /** Sets the clusters offered now; one no longer offered is given up at the next look. */
  offer(names: Iterable<string>): void {
    this.#offered = [...new Set(names)].sort();
  }

  /** The clusters whose Lease this replica holds now (those it drains included), by name. */
  held(): string[] {
    return this.#campaigns.held().sort();
  }

  /**
   * Takes part until `signal` aborts: renews the membership, and every retry period re-plans. On
   * abort it deletes its membership Lease, resigns from every cluster (each released once
   * disengaged), then resolves.
   */
  run(signal: AbortSignal): Promise<void> {
    const member = `${this.#prefix}-member-${nameHash(this.identity)}`;
    return this.#campaigns.run(signal, member, (s) => this.#replan(s));
  }

  async #replan(signal: AbortSignal): Promise<void> {
    const { items } = await this.#options.client.list(Lease, { namespace: this.#options.namespace, signal });
    const offered = this.#offered;
    const plan = planShards(this.identity, this.#members(items), this.#states(items, offered));
    const claimed = new Set(plan.claim.map((index) => offered[index] as string));
    for (const name of claimed) if (!this.#campaigns.has(name)) this.#campaign(name);
    for (const index of plan.release) this.#campaigns.resign(offered[index] as string);
    for (const [name, leader] of this.#campaigns.campaigning()) {
      const keep = leader ? offered.includes(name) : claimed.has(name);
      if (!keep) this.#campaigns.resign(name);
    }
  }

  /** The live replicas: holders of unexpired membership Leases (this one always counts). */
  #members(leases: readonly LeaseObject[]): string[] {
    return leases
      .filter((lease) => (lease.metadata.name ?? "").startsWith(`${this.#prefix}-member-`))
      .filter((lease) => !this.#campaigns.expired(lease))
      .map((lease) => readLeaseRecord(lease).holderIdentity)
      .filter(Boolean);
  }

  /**
   * Each offered cluster's state, by its index in `offered`: what this replica works on counts as
   * held; a Lease naming this replica that it does not work on (given up and draining, or a
   * restart under the same identity) counts as free, to take back once released.
   */
  #states(leases: readonly LeaseObject[], offered: readonly string[]): ShardLeaseState[] {
    const byName = new Map(leases.map((lease) => [lease.metadata.name, lease]));
    return offered.map((cluster, index) => {
      if (this.#campaigns.working(cluster)) return { index, holder: this.identity, expired: false };
      const lease = byName.get(this.#leaseOf(cluster));
      const holder = lease ? readLeaseRecord(lease).holderIdentity || undefined : undefined;
      const expired = lease !== undefined && (holder === this.identity || this.#campaigns.expired(lease));
      return { index, holder, expired };
    });
  }

  /** The Lease of cluster `name` (a hash: a cluster's name need not be a valid Lease name). */
  #leaseOf(name: string): string {
    return `${this.#prefix}-cluster-${nameHash(name)}`;
  }

  #campaign(name: string): void {
    this.#campaigns.campaign(name, this.#leaseOf(name), (signal, lost) =>
      this.#options.onCluster(name, signal, lost),
    );
  }
}
