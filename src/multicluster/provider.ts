/**
 * What a cluster provider is: something that discovers clusters at run time and tells a fleet
 * when one appears, changes or goes away (multicluster-runtime's `Provider` and `Aware.Engage`).
 */
import type { ClusterConnection } from "../client/index.ts";

/** What a provider tells the fleet: clusters appearing, changing and disappearing. */
export interface ClusterSink {
  /**
   * Cluster `name` is there with `connection`. Calling it again for the same name with another
   * connection (rotated credentials, a moved server) disengages the old one and engages the new.
   */
  engage(name: string, connection: ClusterConnection): void;
  /** Cluster `name` is gone (`reason` says why, for logs and metrics). Unknown names are ignored. */
  disengage(name: string, reason: string): void;
  /**
   * The provider has reported every cluster it knew of when its run started (its first list):
   * the fleet is ready again after a failed run.
   */
  ready(): void;
}

/**
 * Discovers clusters. `run` reports what it finds to `sink` until `signal` aborts, then resolves;
 * it rejects when it cannot go on (the fleet logs that, fails its `readiness` and runs it
 * again after a backoff, keeping the clusters it had engaged).
 *
 * @example
 * ```ts
 * const one: ClusterProvider = {
 *   name: "one",
 *   async run(sink, signal) {
 *     sink.engage("dev", await loadKubeconfig({ kubeconfig: "dev.yaml" }));
 *     sink.ready();
 *     await untilAborted(signal);
 *   },
 * };
 * ```
 */
export interface ClusterProvider {
  /** Names the provider in logs and metrics, e.g. `kubeconfig-secrets`. */
  readonly name: string;
  run(sink: ClusterSink, signal: AbortSignal): Promise<void>;
}
