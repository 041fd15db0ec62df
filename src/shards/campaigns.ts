/**
 * The Lease elections one replica runs for named slots (virtual shards, clusters…), one
 * {@link LeaderElector} per slot, plus its membership Lease: the part a {@link ShardCoordinator}
 * and a fleet's cluster coordinator share. The caller plans (which slots to claim or give up);
 * this runs the campaigns, tells whether a Lease listed expired by client-go's rule (sharing each
 * Lease's observation with its elector), and on shutdown resigns from every slot, each released
 * once its work drained.
 */
import type { LeaseObject } from "../api/index.ts";
import type { Clock } from "../clock/index.ts";
import {
  defaultElectionTimings,
  type ElectionPhase,
  type ElectionTimings,
  LeaderElector,
  type LeaderElectorOptions,
  type LeaseClient,
  ObservedRecord,
  readLeaseRecord,
} from "../election/index.ts";
import { holdMembership, type LeaseDeleteClient, ownedByPod, type ReplicaPod } from "./membership.ts";

/** What a {@link LeaseCampaigns} runs its elections with. */
export interface LeaseCampaignsOptions extends Partial<ElectionTimings> {
  client: LeaseClient & LeaseDeleteClient;
  /** Namespace of the Leases. */
  namespace: string;
  /** This replica's identity, written to the Leases. */
  identity: string;
  clock: Clock;
  /** Source of the retries' jitter, uniform in [0, 1). Default `Math.random`. */
  random?: () => number;
  /** The pod that owns the membership Lease, if any. */
  pod?: ReplicaPod;
  /** Called with each failed API call and each exception a slot's work throws. */
  onError: (error: unknown, phase: ElectionPhase | "list") => void;
}

/** One election this replica runs for a slot. */
interface Campaign {
  readonly elector: LeaderElector;
  readonly stop: AbortController;
  readonly done: Promise<void>;
}

/**
 * The campaigns of one replica for slots keyed by `K`; see the module's description.
 */
export class LeaseCampaigns<K> {
  readonly #options: LeaseCampaignsOptions;
  readonly #campaigns = new Map<K, Campaign>();
  /** What this replica saw of each Lease, and when, by Lease name. */
  readonly #observed = new Map<string, ObservedRecord>();

  /** Campaigns under `options`; starts nothing before {@link run} or {@link campaign}. */
  constructor(options: LeaseCampaignsOptions) {
    this.#options = options;
  }

  /**
   * Holds the membership Lease `member` and calls `replan` every retry period (with jitter) until
   * `signal` aborts; then resigns from every slot and resolves once each was released and the
   * membership Lease deleted.
   */
  async run(
    signal: AbortSignal,
    member: string,
    replan: (signal: AbortSignal) => Promise<void>,
  ): Promise<void> {
    const membership = this.#holdMembership(member, signal);
    const period = this.#options.retryPeriodMs ?? defaultElectionTimings.retryPeriodMs;
    while (!signal.aborted) {
      await replan(signal).catch((err: unknown) => this.report(err, "list"));
      const jitter = (this.#options.random ?? Math.random)() * period;
      await this.#options.clock.sleep(period + jitter, signal).catch(() => {});
    }
    for (const key of this.#campaigns.keys()) this.resign(key);
    await Promise.all([membership, ...[...this.#campaigns.values()].map((c) => c.done)]);
  }

  /** The slots whose Lease this replica holds now (those it drains included), unordered. */
  held(): K[] {
    return [...this.#campaigns].filter(([, c]) => c.elector.isLeader()).map(([key]) => key);
  }

  /** The slots this replica campaigns for, with whether it leads each. */
  campaigning(): [K, boolean][] {
    return [...this.#campaigns].map(([key, c]) => [key, c.elector.isLeader()]);
  }

  /** Whether this replica campaigns for `key`. */
  has(key: K): boolean {
    return this.#campaigns.has(key);
  }

  /** Whether this replica works on `key`: it leads its election and has not resigned from it. */
  working(key: K): boolean {
    const campaign = this.#campaigns.get(key);
    return (campaign?.elector.isLeader() ?? false) && !campaign?.stop.signal.aborted;
  }

  /**
   * Whether `lease`'s holder let it expire, by client-go's rule on this replica's own clock: its
   * record has not changed for a lease duration since this replica first saw it (each list is a
   * look). The elector of a campaign starts from the same observation.
   */
  expired(lease: LeaseObject): boolean {
    const record = readLeaseRecord(lease);
    if (!record.holderIdentity) return true;
    const observed = this.#observation(lease.metadata.name ?? "");
    const now = this.#options.clock.monotonicMs();
    observed.observe(record, now);
    return !observed.isValid(now);
  }

  /**
   * Campaigns for slot `key` under the Lease `leaseName`; `work` runs while this replica leads (see
   * `onStartedLeading`). If it throws, the failure is reported (phase `callback`) and the slot
   * given up, to be claimed again by whichever replica's plan has room for it.
   */
  campaign(key: K, leaseName: string, work: (signal: AbortSignal, lost: AbortSignal) => Promise<void>): void {
    const elector = this.#elector(leaseName, async (signal, lost) => {
      try {
        await work(signal, lost);
      } catch (err) {
        // Holding a slot nobody works on would stall it silently: report, and give it up to be taken again.
        this.report(err, "callback");
        this.resign(key);
      }
    });
    // Not following run()'s signal: on shutdown, run() resigns every campaign itself.
    const stop = new AbortController();
    const done = elector
      .run(stop.signal)
      .catch((err: unknown) => this.report(err, "acquire"))
      .finally(() => {
        if (this.#campaigns.get(key)?.elector === elector) this.#campaigns.delete(key);
      });
    this.#campaigns.set(key, { elector, stop, done });
  }

  /** Stops the campaign for `key`: a held slot's work is told to stop, its Lease renewed until it drained, then released. */
  resign(key: K): void {
    this.#campaigns.get(key)?.stop.abort(new Error(`${String(key)} resigned`));
  }

  /** Reports `error` to `onError`; a throwing hook is ignored. */
  report(error: unknown, phase: ElectionPhase | "list"): void {
    try {
      this.#options.onError(error, phase);
    } catch {
      // A throwing error hook must not stop the campaigns.
    }
  }

  /** Holds the membership Lease `name` (nobody else campaigns for it) until `signal` aborts, then deletes it. */
  #holdMembership(name: string, signal: AbortSignal): Promise<void> {
    const { pod, client, namespace, clock, renewDeadlineMs } = this.#options;
    const elector = this.#elector(name, () => {}, {
      releaseOnCancel: false,
      ...(pod ? { ownerReferences: [ownedByPod(pod)] } : {}),
    });
    const timeoutMs = renewDeadlineMs ?? defaultElectionTimings.renewDeadlineMs;
    return holdMembership(elector, signal, { client, namespace, clock, timeoutMs }).catch((err: unknown) =>
      this.report(err, "release"),
    );
  }

  #observation(leaseName: string): ObservedRecord {
    const observed = this.#observed.get(leaseName) ?? new ObservedRecord();
    this.#observed.set(leaseName, observed);
    return observed;
  }

  #elector(
    name: string,
    lead: NonNullable<LeaderElectorOptions["onStartedLeading"]>,
    options: Partial<LeaderElectorOptions> = {},
  ): LeaderElector {
    const o = this.#options;
    return new LeaderElector({
      ...options,
      name,
      onStartedLeading: lead,
      observed: this.#observation(name),
      client: o.client,
      namespace: o.namespace,
      identity: o.identity,
      clock: o.clock,
      random: o.random,
      leaseDurationMs: o.leaseDurationMs,
      renewDeadlineMs: o.renewDeadlineMs,
      retryPeriodMs: o.retryPeriodMs,
      onError: o.onError,
    });
  }
}
