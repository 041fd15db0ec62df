/**
 * What the conformance kit's tests share: a control plane of the file's own, started as the kit
 * starts one (`--watch-cache=false`, so an etcd compaction reaches watches as 410), because the
 * checks restart its apiserver and compact its etcd — never the run's shared cluster.
 */
import { after, before } from "node:test";
import { type Cluster, startCluster } from "../../../src/cluster/index.ts";
import type { CheckResult, ConformanceReport } from "../../../src/testing/conformance/index.ts";

/** Options of {@link kitCluster}. */
export interface KitClusterOptions {
  /** Run the scheduler and kwok too, for operators whose outputs run pods. Default false. */
  pods?: boolean;
}

/**
 * Starts a cluster before the file's tests and stops it after them; returns a getter for it
 * (node:test runs the tests of a file one after the other, so they can share it).
 */
export function kitCluster(options: KitClusterOptions = {}): () => Cluster {
  let cluster: Cluster | undefined;
  before(async () => {
    cluster = await startCluster({
      apiserverArgs: ["--watch-cache=false"],
      components: { controllerManager: true, scheduler: options.pods ?? false, kwok: options.pods ?? false },
      report: () => {},
    });
  });
  after(() => cluster?.stop());
  return () => {
    if (!cluster) throw new Error("the cluster did not start");
    return cluster;
  };
}

/** The result of check `name` in `report`. */
export function resultOf(report: ConformanceReport, name: CheckResult["name"]): CheckResult {
  const result = report.results.find((r) => r.name === name);
  if (!result) throw new Error(`no result for ${name} in the report`);
  return result;
}
