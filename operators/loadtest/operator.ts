/**
 * The LoadTest operator: one controller for LoadTests that owns their Jobs, watches Jobs of the same
 * name (a foreign one blocks the test until it goes), and watches the test-script ConfigMaps they
 * reference (through a cache index), so a ConfigMap created after its LoadTest starts the test at once.
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
} from "kubeloop";
import { LoadTest, type LoadTestObject } from "./api.ts";
import { reconcileLoadTest } from "./controller.ts";

/** The LoadTest cache index from `namespace/configMapName` of the test script to the LoadTests using it. */
export const TEST_SCRIPT_INDEX = "loadtest.kubeloop.dev/test-script";

/** The index values of a LoadTest: the key of its test-script ConfigMap. */
export function testScriptKeys(loadTest: LoadTestObject): string[] {
  const name = loadTest.spec?.testScript?.config?.configMap;
  return name ? [`${loadTest.metadata.namespace ?? ""}/${name}`] : [];
}

/** Builds the LoadTest controller on `host` (the manager). */
export function setupLoadTests(host: ControllerHost): void {
  const loadTests = host.cache.informer(LoadTest);
  loadTests.addIndexer(TEST_SCRIPT_INDEX, testScriptKeys);
  const usersOf = (configMap: ConfigMapObject) =>
    loadTests.store.byIndex(TEST_SCRIPT_INDEX, keyOf(configMap)).map(keyOf);
  // A Job named like a LoadTest but controlled by someone else blocks it (JobConflict); watching
  // Jobs by name too wakes the LoadTest when that Job goes away or is released.
  const sameName = (job: JobObject) => (loadTests.store.get(keyOf(job)) ? [keyOf(job)] : []);
  controller(host)
    .for(LoadTest)
    .owns(Job)
    .watches(Job, sameName)
    .watches(ConfigMap, usersOf)
    .reconcile(reconcileLoadTest);
}

/** The operator: `kubeloop run` runs it, `kubeloop generate` derives its CRD, RBAC and Deployment. */
export default defineOperator({
  name: "loadtest-operator",
  kinds: [LoadTest],
  setup: setupLoadTests,
});
