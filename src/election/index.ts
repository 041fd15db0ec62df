/**
 * @module election
 *
 * Leader election on a coordination.k8s.io/v1 Lease, so that of several replicas of an operator
 * exactly one reconciles at a time. {@link LeaderElector} follows client-go's `LeaderElector`
 * with controller-runtime's defaults (lease 15 s, renew deadline 10 s, retry 2 s): candidates
 * judge a holder's lease expired by their own monotonic clock since they last saw its record
 * change (never by its `renewTime`, so neither clock skew nor a wall-clock jump matters), and
 * retry with client-go's jitter; every write is an optimistic-concurrency update. The leading
 * work gets two signals: told to stop, and lost. On shutdown the work is told to stop and the
 * Lease stays renewed until the work ended, then is released so a successor takes over at its
 * next try (as controller-runtime stops its runnables before it cancels leader election); a
 * leader that cannot renew within the deadline of its last successful renewal — while draining
 * too — has lost leadership at once. {@link ElectionMetrics} hooks mirror
 * `leader_election_master_status`.
 *
 * It is not a lock for mutual exclusion of individual writes (a leader may still overlap a
 * successor by clock-rate drift; make reconciles idempotent), not a way to shard work among
 * replicas, and it does not implement the alpha coordinated election (`LeaseCandidate`).
 *
 * @example
 * ```ts
 * import { Client } from "kubeloop";
 * import { LeaderElector } from "kubeloop/election";
 *
 * const client = await Client.load();
 * const elector = new LeaderElector({
 *   client,
 *   name: "my-operator-lock",
 *   namespace: "my-operator-system",
 *   identity: `${process.env.POD_NAME}_${process.env.POD_UID}`,
 *   // `signal`: stop taking work and drain (the Lease stays renewed until this returns);
 *   // `lost`: leadership is gone, stop writing at once.
 *   onStartedLeading: (signal, lost) => runControllers(signal, lost),
 *   onNewLeader: (who) => console.log(`leader is ${who}`),
 * });
 * const shutdown = new AbortController();
 * process.once("SIGTERM", () => shutdown.abort());
 * await elector.run(shutdown.signal); // campaigns, leads; on SIGTERM drains, then releases the Lease
 * ```
 */
export { LeaderElector } from "./elector.ts";
export * from "./errors.ts";
export { ObservedRecord } from "./internal/observed.ts";
export { type LeaseRecord, microTime, readLeaseRecord } from "./lease.ts";
export * from "./metrics.ts";
export { isValidLeaseName, leaseName, nameHash } from "./names.ts";
export {
  defaultElectionTimings,
  defaultIdentity,
  type ElectionPhase,
  type ElectionTimings,
  type LeaderElectorOptions,
  type LeaseClient,
  retryJitterFactor,
} from "./options.ts";
