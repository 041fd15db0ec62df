/**
 * @module testing
 *
 * The end-to-end kit for an operator's tests, against a real cluster: {@link startOperator} runs
 * the operator in the test process (its CRDs installed, its webhooks and conversions served, and
 * its `stop()` failing on a kind it used without declaring it), {@link testNamespace} gives each
 * test a namespace of its own, {@link testFleet} a fleet of member clusters with their kubeconfig
 * Secrets in the hub, {@link eventually} waits by polling with a deadline; and
 * {@link queryProblems}, whether a dashboard's or an alert's PromQL reads only what an operator's
 * `/metrics` exposes ({@link exposition}). `kubeloop test` starts the cluster they run against.
 *
 * Not for production code paths, and not the whole toolbox: the fault-injecting proxy is
 * `kubeloop/testing/proxy`, the conformance kit (`kubeloop verify`) `kubeloop/testing/conformance`,
 * the local control plane `kubeloop/cluster`.
 *
 * @example
 * ```ts
 * import { test } from "node:test";
 * import { eventually, startOperator, testNamespace } from "kubeloop/testing";
 * import { Backup } from "../src/api.ts";
 * import operator from "../src/operator.ts";
 *
 * test("a Backup reports its conditions", async (t) => {
 *   const running = await startOperator(operator); // its CRDs installed, its caches synced
 *   t.after(() => running.stop()); // rejects when it used a kind it does not declare
 *   const namespace = await testNamespace(running.client, t); // deleted when the test ends
 *   await running.client.create(Backup, {
 *     apiVersion: Backup.apiVersion,
 *     kind: Backup.kind,
 *     metadata: { name: "nightly", namespace },
 *     spec: { schedule: "0 3 * * *", source: "postgres://db:5432/app", settings: "backup-settings" },
 *   });
 *   const conditions = async () =>
 *     (await running.client.get(Backup, "nightly", { namespace })).status?.conditions;
 *   await eventually(conditions, { what: "the Backup's conditions" });
 * });
 * ```
 */

export {
  CONVERSION_HOST_ENV,
  type ConversionHost,
  serveConversions,
  webhooksServedInTest,
  whileServingConversions,
} from "./conversions.ts";
export { PromqlSyntaxError, UndeclaredKindsError } from "./errors.ts";
export { type EventuallyOptions, eventually, eventuallyWhile } from "./eventually.ts";
export { type TestFleet, type TestFleetMember, type TestFleetOptions, testFleet } from "./fleet.ts";
export { type ExposedSeries, exposition, queryProblems } from "./metrics.ts";
export { TEST_SESSION_LABEL, type TestScope, testNamespace, testSession } from "./namespace.ts";
export {
  type RunningOperator,
  type StartOperatorOptions,
  startOperator,
  TEST_KUBECONFIG_ENV,
} from "./operator.ts";
