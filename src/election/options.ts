/** Options of a {@link LeaderElector}: the Lease, the candidate, the timings and the callbacks. */

import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Lease, LeaseObject, OwnerReference } from "../api/index.ts";
import type { ObjectOptions, WriteOptions } from "../client/index.ts";
import type { Clock } from "../clock/index.ts";
import { InvalidElectionConfigError } from "./errors.ts";
import type { ObservedRecord } from "./internal/observed.ts";
import type { ElectionMetrics } from "./metrics.ts";
import { isValidLeaseName } from "./names.ts";

/**
 * The client methods the elector uses; a {@link Client} satisfies it. Failures must be the
 * client's typed errors (`NotFoundError`, `ConflictError`, `AlreadyExistsError`, ...).
 */
export interface LeaseClient {
  /** Reads the Lease; rejects with `NotFoundError` when it does not exist. */
  get(type: typeof Lease, name: string, opts: ObjectOptions): Promise<LeaseObject>;
  /** Creates the Lease; rejects with `AlreadyExistsError` when another candidate created it first. */
  create(type: typeof Lease, obj: LeaseObject, opts: WriteOptions): Promise<LeaseObject>;
  /** Replaces the Lease; rejects with `ConflictError` when its resourceVersion is stale. */
  update(type: typeof Lease, obj: LeaseObject, opts: WriteOptions): Promise<LeaseObject>;
}

/** The three durations of an election, in milliseconds. */
export interface ElectionTimings {
  /** How long candidates wait, after last seeing the record change, before taking over. Whole seconds. */
  leaseDurationMs: number;
  /** How long the leader keeps leading without a successful renew. */
  renewDeadlineMs: number;
  /** How often the leader renews, and the least time between a candidate's tries (plus jitter). */
  retryPeriodMs: number;
}

/** controller-runtime's defaults: lease 15 s, renew deadline 10 s, retry every 2 s. */
export const defaultElectionTimings: Readonly<ElectionTimings> = Object.freeze({
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
});

/**
 * client-go's `JitterFactor`: candidates wait up to this many more `retryPeriod`s between tries,
 * at random; `renewDeadline` must exceed `retryPeriod` times this.
 */
export const retryJitterFactor = 1.2;

/** Where in an election an error happened, as passed to {@link LeaderElectorOptions.onError}. */
export type ElectionPhase = "acquire" | "renew" | "release" | "callback";

/** Options of a {@link LeaderElector}. Durations not given take {@link defaultElectionTimings}. */
export interface LeaderElectorOptions extends Partial<ElectionTimings> {
  /** Reads and writes the Lease; usually the manager's {@link Client}. */
  client: LeaseClient;
  /**
   * Name of the Lease. Required; every replica of one operator uses the same. A DNS-1123
   * subdomain, as the apiserver requires: {@link leaseName} makes one of any text.
   */
  name: string;
  /** Namespace of the Lease. Default: the client's default namespace (the pod's, in a cluster). */
  namespace?: string;
  /** This candidate's identity, unique among the candidates. Default {@link defaultIdentity}(). */
  identity?: string;
  /**
   * Give the Lease up once the work ended after the run signal aborted, so a successor takes over
   * at once (client-go's `ReleaseOnCancel`). Default true.
   */
  releaseOnCancel?: boolean;
  /**
   * Owners written into the Lease's metadata on every write, so that garbage collection deletes
   * the Lease with them. Only for a Lease one candidate keeps for itself (a sharded replica's
   * membership, owned by its pod): a Lease candidates share must outlive its holder, or another
   * candidate could take it the moment it is deleted rather than a lease duration after the last
   * renewal. Default none.
   */
  ownerReferences?: readonly OwnerReference[];
  /** Source of time: wall time for the Lease's timestamps, monotonic time for durations. Default `systemClock`. */
  clock?: Clock;
  /** Source of the acquire retries' jitter, uniform in [0, 1). Default `Math.random`. */
  random?: () => number;
  /** Instrumentation hooks. Default {@link noopElectionMetrics}. */
  metrics?: ElectionMetrics;
  /**
   * What this candidate already saw of the Lease, and when (monotonic ms): the holder's lease is
   * measured from then, as if the elector had read it itself. A sharded operator's coordinator,
   * which lists the shard Leases every retry period, passes its observation so that a replica
   * starting a campaign for a shard whose holder died need not watch it for a full lease first.
   */
  observed?: ObservedRecord;
  /**
   * Called on becoming leader, with two signals:
   *
   * - `signal` aborts when the work must stop: told to stop (the run signal aborted: shutdown, a
   *   shard given up), with the run signal's reason, or leadership lost. Told to stop, the work
   *   drains (stops taking new work, lets what is in flight finish) while the elector keeps
   *   renewing the Lease; once the returned promise settled, the Lease is released.
   * - `lost` aborts only when leadership is lost, with a `LeadershipLostError`: no renewal
   *   succeeded within `renewDeadline` of the last successful one (while draining too), or
   *   another candidate holds the Lease. Stop writing at once: another candidate may take over a
   *   lease duration after the last renewal.
   *
   * The elector waits for the returned promise before it releases the Lease or tries to acquire
   * again, so two terms never overlap; a work that never settles after `signal` keeps the Lease
   * for good, so bound its drain.
   */
  onStartedLeading?: (signal: AbortSignal, lost: AbortSignal) => void | Promise<void>;
  /**
   * Called the moment leadership ends: when it is lost (right after `lost` aborted), or when the
   * work ended after it was told to stop (right before the Lease is released).
   */
  onStoppedLeading?: () => void;
  /** Called when a holder other than the last one reported is observed (this candidate included). */
  onNewLeader?: (identity: string) => void;
  /** Called with each failed API call (it is retried) and each exception a callback throws. */
  onError?: (error: unknown, phase: ElectionPhase) => void;
}

/**
 * controller-runtime's default identity: the host name, `_`, and a random suffix. In a pod,
 * pass the pod's name and UID instead.
 */
export function defaultIdentity(): string {
  return `${hostname()}_${randomBytes(8).toString("hex")}`;
}

/** Fills in default timings and throws {@link InvalidElectionConfigError} when they break client-go's rules. */
export function resolveTimings(options: Partial<ElectionTimings>): ElectionTimings {
  const timings = {
    leaseDurationMs: options.leaseDurationMs ?? defaultElectionTimings.leaseDurationMs,
    renewDeadlineMs: options.renewDeadlineMs ?? defaultElectionTimings.renewDeadlineMs,
    retryPeriodMs: options.retryPeriodMs ?? defaultElectionTimings.retryPeriodMs,
  };
  for (const [option, value] of Object.entries(timings)) requirePositive(option, value);
  const { leaseDurationMs, renewDeadlineMs, retryPeriodMs } = timings;
  if (leaseDurationMs % 1000 !== 0) {
    invalid(
      "leaseDurationMs",
      `is ${leaseDurationMs}`,
      "The Lease stores whole seconds; pass a multiple of 1000.",
    );
  }
  if (leaseDurationMs <= renewDeadlineMs) {
    invalid(
      "leaseDurationMs",
      `(${leaseDurationMs}) is not greater than renewDeadlineMs (${renewDeadlineMs})`,
      "A leader must give up before others may take over; raise leaseDurationMs or lower renewDeadlineMs.",
    );
  }
  if (renewDeadlineMs <= retryJitterFactor * retryPeriodMs) {
    invalid(
      "renewDeadlineMs",
      `(${renewDeadlineMs}) is not greater than ${retryJitterFactor} × retryPeriodMs (${retryPeriodMs})`,
      "A leader must get several renew attempts before its deadline; lower retryPeriodMs.",
    );
  }
  return timings;
}

/** Throws {@link InvalidElectionConfigError} unless `name` is a name the apiserver accepts for a Lease. */
export function requireLeaseName(name: string | undefined): string {
  const given = requireText("name", name);
  if (isValidLeaseName(given)) return given;
  return invalid(
    "name",
    `"${given}" is not a valid Lease name`,
    "A Lease name is a DNS-1123 subdomain: at most 253 lower-case letters, digits, '-' and '.', " +
      "starting and ending with a letter or digit; leaseName() from kubeloop/election makes one of any text.",
  );
}

/** Throws {@link InvalidElectionConfigError} unless `value` is a non-empty string. */
export function requireText(option: string, value: string | undefined): string {
  if (typeof value === "string" && value.length > 0) return value;
  return invalid(option, "is empty", `Pass a non-empty ${option}.`);
}

function requirePositive(option: string, value: number): void {
  if (Number.isFinite(value) && value > 0) return;
  invalid(option, `is ${value}`, "Pass a finite number of milliseconds above zero.");
}

function invalid(option: string, problem: string, fix: string): never {
  throw new InvalidElectionConfigError(option, problem, fix);
}
