/**
 * @module testing/conformance
 *
 * The conformance kit: proves that an operator honours kubeloop's principles, under faults. It runs
 * the operator as a process of its own behind the fault-injecting proxy, against a local control
 * plane, and checks, each by name: it converges from nothing and from messy starts (`converge`);
 * a settled object's reconcile writes nothing (`idempotent`); deleted or tampered outputs are
 * repaired (`outputs-watched`); a field another manager adds to an exclusive output is removed and
 * the repair attributed (`exclusive-outputs`); a wiped status is rebuilt identical (`status-rebuild`); missed
 * watch events do not matter (`missed-events`); 410 Expired leads to a relist and no duplicate
 * (`watch-expiry`); the cache heals after dropped watch events without any new change to the
 * object (`cache-heals`); kills mid-reconcile leave no duplicate or orphan (`crash-safety`); cleanup may
 * run twice and deletion completes (`finalizers`); 429, 500, resets, latency and an apiserver
 * restart lose nothing (`transient-failures`); `observedGeneration` never runs ahead of the work
 * (`generation-honesty`); a leader whose Lease was taken sends nothing after its renew deadline and
 * exits (`leadership-fenced`). Each failure says what was expected, what was seen, and which of the
 * operator's requests were involved. `kubeloop verify` runs it on a project. An operator running in
 * a fleet is checked per member cluster: `runConformance(spec, { fleet })` ({@link openFleetSession})
 * runs its controllers in a `Fleet` of the members and every check on each member in turn.
 *
 * Not a unit-test helper: a run starts a control plane and takes minutes. Not for production clusters
 * either: it deletes, tampers with and breaks things on purpose.
 *
 * @example
 * ```ts
 * // test/conformance.ts of an operator project
 * import { defineConformance, formatReport, runConformance } from "kubeloop/testing/conformance";
 *
 * const spec = defineConformance({
 *   operator: "src/operator.ts",
 *   fixtures: (namespace) => [
 *     {
 *       apiVersion: "demo.example.com/v1",
 *       kind: "Greeting",
 *       metadata: { name: "hello", namespace },
 *       spec: { message: "hi" },
 *     },
 *   ],
 *   mutate: (obj, round) => ({ ...obj, spec: { message: `changed ${round}` } }),
 * });
 * export default spec; // what `kubeloop verify` runs
 *
 * // or from code, e.g. in a test
 * const report = await runConformance(spec, { checks: ["idempotent"] });
 * console.log(formatReport(report));
 * ```
 */
export type { ConformanceCheck } from "./check.ts";
export {
  cacheHeals,
  checkNames,
  conformanceChecks,
  converge,
  crashSafety,
  finalizers,
  generationHonesty,
  idempotent,
  missedEvents,
  outputsWatched,
  statusRebuild,
  transientFailures,
  watchExpiry,
} from "./checks/index.ts";
export { ConformanceError } from "./errors.ts";
export {
  type ExploreOptions,
  type ExploreReport,
  type Finding,
  formatExploreReport,
  runExploration,
} from "./explore/index.ts";
export { type ConformanceMember, type FleetSession, openFleetSession } from "./fleet-session.ts";
export { notReconcileWrites } from "./internal/requests.ts";
export { loadConformanceSpec } from "./load.ts";
export { formatFailure, formatReport, formatTable } from "./report.ts";
export type { CheckFailure, CheckName, CheckOutcome, CheckResult, ConformanceReport } from "./result.ts";
export { CheckFailed } from "./result.ts";
export { type RunConformanceOptions, runCheck, runConformance, selectChecks } from "./run.ts";
export { type ConformanceSession, KIT_FIELD_MANAGER, openSession, type SessionOptions } from "./session.ts";
export {
  type ConformanceSpec,
  type ConformanceTimings,
  defaultSettled,
  defaultTimings,
  defineConformance,
  type JsonPatchOperation,
} from "./spec.ts";
