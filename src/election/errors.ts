import { KubeloopError } from "../errors/index.ts";

/**
 * A leader-election option is missing or out of range: an empty Lease name or identity, a
 * non-positive duration, or timings that break client-go's ordering
 * `leaseDuration > renewDeadline > 1.2 × retryPeriod`. Code `KL_ELECTION_INVALID_CONFIG`.
 */
export class InvalidElectionConfigError extends KubeloopError {
  /** The option that was rejected, e.g. `renewDeadlineMs`. */
  readonly option: string;

  constructor(option: string, problem: string, fix: string) {
    super("KL_ELECTION_INVALID_CONFIG", `leader election: ${option} ${problem}. ${fix}`);
    this.option = option;
  }
}

/**
 * `run` was called while a previous `run` of the same elector is still going. One elector is one
 * candidate; start a second {@link LeaderElector} for a second candidate. Code
 * `KL_ELECTION_ALREADY_RUNNING`.
 */
export class ElectionAlreadyRunningError extends KubeloopError {
  constructor(lease: string) {
    super(
      "KL_ELECTION_ALREADY_RUNNING",
      `leader election for Lease ${lease} is already running on this elector. ` +
        "Await the first run (abort its signal to stop it) before calling run again.",
    );
  }
}

/**
 * The reason the leading work's signals (`signal` and `lost`) abort with when leadership is
 * lost: no renew succeeded within `renewDeadline` of the last successful one, or another
 * candidate holds the Lease. (Told to stop, only `signal` aborts, with the run signal's own
 * reason.) Code `KL_LEADERSHIP_LOST`.
 */
export class LeadershipLostError extends KubeloopError {
  constructor(lease: string, why: string) {
    super(
      "KL_LEADERSHIP_LOST",
      `lost leadership of Lease ${lease}: ${why}. Stop work guarded by the election; ` +
        "the elector goes back to acquiring.",
    );
  }
}
