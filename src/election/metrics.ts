/**
 * Hooks a {@link LeaderElector} calls as leadership changes, named after client-go's
 * leader-election metrics. The manager binds them to Prometheus; the elector itself depends on
 * no metrics library.
 */
export interface ElectionMetrics {
  /**
   * `leader_election_master_status{name}`: 1 while this elector leads the Lease `name`, 0
   * otherwise. Called with 0 when a run starts, then on every change.
   */
  masterStatus(name: string, value: 0 | 1): void;
  /**
   * `leader_election_transitions_total{name}`: this elector observed the Lease change hands
   * (a holder different from the last one it reported, this elector included). The first
   * holder a run sees is a baseline, not a transition.
   */
  leaderTransition(name: string): void;
}

/** {@link ElectionMetrics} that record nothing; the elector's default. */
export const noopElectionMetrics: ElectionMetrics = {
  masterStatus() {},
  leaderTransition() {},
};
