/** Candidates on the real apiserver, and a sampler that checks two never lead at once. */
import type { TestContext } from "node:test";
import { Lease, type LeaseObject } from "../../../src/api/index.ts";
import { LeaderElector, type LeaderElectorOptions, retryJitterFactor } from "../../../src/election/index.ts";
import { testClient } from "../support.ts";

/** The Lease name every candidate of a test campaigns for. */
export const LEASE = "lock";

/** A running candidate. */
export interface Candidate {
  elector: LeaderElector;
  /** Errors the elector reported. */
  errors: unknown[];
  /** Aborts the run (releasing the Lease unless `releaseOnCancel` is false) and waits for it to end. */
  stop(): Promise<void>;
}

/** Starts a candidate for {@link LEASE} in `namespace`; it is stopped when the test ends. */
export async function startCandidate(
  t: TestContext,
  namespace: string,
  identity: string,
  options: Partial<LeaderElectorOptions> = {},
): Promise<Candidate> {
  const errors: unknown[] = [];
  const elector = new LeaderElector({
    client: await testClient(),
    name: LEASE,
    namespace,
    identity,
    onError: (error) => errors.push(error),
    ...options,
  });
  const controller = new AbortController();
  const running = elector.run(controller.signal);
  const stop = () => {
    controller.abort();
    return running;
  };
  t.after(stop);
  return { elector, errors, stop };
}

/** Reads the Lease the candidates campaign for. */
export async function readLease(namespace: string): Promise<LeaseObject> {
  return (await testClient()).get(Lease, LEASE, { namespace });
}

/** What a {@link LeadershipSampler} saw. */
export interface Samples {
  total: number;
  /** Samples in which more than one candidate reported being leader. */
  several: number;
  /** Samples in which no candidate did. */
  none: number;
}

/** Samples `isLeader()` of every elector every `intervalMs` until stopped. */
export class LeadershipSampler {
  readonly #samples: Samples = { total: 0, several: 0, none: 0 };
  readonly #timer: NodeJS.Timeout;

  constructor(electors: LeaderElector[], intervalMs = 50) {
    this.#timer = setInterval(() => {
      const leaders = electors.filter((e) => e.isLeader()).length;
      this.#samples.total++;
      if (leaders > 1) this.#samples.several++;
      if (leaders === 0) this.#samples.none++;
    }, intervalMs);
  }

  /** Stops sampling and returns the tally. */
  stop(): Samples {
    clearInterval(this.#timer);
    return { ...this.#samples };
  }
}

/** Milliseconds since `start` (a `performance.now()` reading). */
export function since(start: number): number {
  return Math.round(performance.now() - start);
}

/**
 * The longest a candidate may take to replace a leader that stopped renewing, with client-go's
 * semantics: it sees the last renewal at its next try (up to one jittered `retryPeriod` later),
 * counts `leaseDuration` from then, and takes the Lease at its first try after that (up to one
 * more). Plus `slackMs` for what follows the take-over (starting to reconcile).
 */
export function longestFailoverMs(
  timings: { leaseDurationMs: number; retryPeriodMs: number },
  slackMs = 1_000,
): number {
  return timings.leaseDurationMs + 2 * (1 + retryJitterFactor) * timings.retryPeriodMs + slackMs;
}
