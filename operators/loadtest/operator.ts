/**
 * The LoadTest operator: one controller for LoadTests that owns their Jobs, watches Jobs of the same
 * name (a foreign one blocks the test until it goes), watches the test-script ConfigMaps they
 * reference (through a cache index), so a ConfigMap created after its LoadTest starts the test at
 * once, and caches the worker pods (only those) to name them in `Running` events when a test starts.
 * It owns the workers' ServiceAccounts too. The API group comes from `LOADTEST_API_GROUP` (see
 * `api.ts`), the workers' telemetry settings from `ARTILLERY_DISABLE_TELEMETRY` and
 * `ARTILLERY_TELEMETRY_DEBUG`, as in the Artillery operator, and the worker policy from
 * `LOADTEST_ALLOWED_IMAGES` and `LOADTEST_ALLOW_VALUE_FROM` (see `policy.ts`), which `kubeloop
 * generate` and `kubeloop install` also turn into a ValidatingAdmissionPolicy (see `admission.ts`).
 */
import {
  ConfigMap,
  type ConfigMapObject,
  type ControllerHost,
  controller,
  defineOperator,
  Job,
  type JobObject,
  keyOf,
  objectKey,
  Pod,
  type PodObject,
  ServiceAccount,
} from "kubeloop";
import { workerAdmissionPolicy } from "./admission.ts";
import { LoadTest, type LoadTestObject, OPERATOR_NAME } from "./api.ts";
import { type LoadTestSettings, reconcileLoadTest } from "./controller.ts";
import { COMPONENT_LABEL, TEST_NAME_LABEL } from "./job.ts";
import { workerPolicyFrom } from "./policy.ts";
import { telemetryFrom } from "./telemetry.ts";

/** The LoadTest cache index from `namespace/configMapName` of the test script to the LoadTests using it. */
export const TEST_SCRIPT_INDEX = "loadtest.kubeloop.dev/test-script";

/** The index values of a LoadTest: the key of its test-script ConfigMap. */
export function testScriptKeys(loadTest: LoadTestObject): string[] {
  const name = loadTest.spec?.testScript?.config?.configMap;
  return name ? [`${loadTest.metadata.namespace ?? ""}/${name}`] : [];
}

/**
 * LoadTests reconciled at once. A reconcile mostly waits on the apiserver (the Job, its
 * ServiceAccount, a status write).
 * Measured after an apiserver restart under load (bench/restart.ts, the controller manager's
 * client limit lifted so that the operators are the critical path): with one worker, busy every
 * second for 6 s, a child's readiness reached its parent's status up to 2.1-3.0 s late, queued
 * (up to 6.4 s on a more loaded machine); with 4, 1.3 s, and everything converged 0.5-1 s sooner.
 */
export const LOADTEST_CONCURRENCY = 4;

/** An environment, as `process.env` is. */
type Environment = Readonly<Record<string, string | undefined>>;

/** Builds the LoadTest controller on `host` (the manager), with the settings of `env`. */
export function setupLoadTests(host: ControllerHost, env: Environment = process.env): void {
  const loadTests = host.cache.informer(LoadTest);
  loadTests.addIndexer(TEST_SCRIPT_INDEX, testScriptKeys);
  const usersOf = (configMap: ConfigMapObject) =>
    loadTests.store.byIndex(TEST_SCRIPT_INDEX, keyOf(configMap)).map(keyOf);
  // A Job named like a LoadTest but controlled by someone else blocks it (JobConflict); watching
  // Jobs by name too wakes the LoadTest when that Job goes away or is released.
  const sameName = (job: JobObject) => (loadTests.store.get(keyOf(job)) ? [keyOf(job)] : []);
  // Worker pods only; a change of one wakes its LoadTest until the test has started (and its
  // `Running` events are told), never after.
  const workerScope = { ...host.cache.scopeFor(Pod), labelSelector: `${COMPONENT_LABEL}=loadtest-worker` };
  const workers = host.cache.informer(Pod, workerScope);
  const startingTestOf = (pod: PodObject) => {
    const key = objectKey(pod.metadata.namespace, pod.metadata.labels?.[TEST_NAME_LABEL] ?? "");
    const test = loadTests.store.get(key);
    return test && !test.status?.startTime ? [key] : [];
  };
  const settings: LoadTestSettings = {
    telemetry: telemetryFrom(env, OPERATOR_NAME),
    policy: workerPolicyFrom(env),
    workerPods: (namespace, selector) => workers.store.list({ namespace, labelSelector: selector }),
  };
  controller(host)
    .for(LoadTest)
    .owns(Job)
    .owns(ServiceAccount)
    .watches(Job, sameName)
    .watches(ConfigMap, usersOf)
    .watches(Pod, startingTestOf, { scope: workerScope })
    .withOptions({ concurrency: LOADTEST_CONCURRENCY })
    .reconcile((ctx) => reconcileLoadTest(ctx, settings));
}

/** The operator: `kubeloop run` runs it, `kubeloop generate` derives its CRD, RBAC and Deployment. */
export default defineOperator({
  name: OPERATOR_NAME,
  kinds: [LoadTest],
  setup: (host) => setupLoadTests(host),
  manifests: () => workerAdmissionPolicy(workerPolicyFrom(process.env), LoadTest.group),
});
