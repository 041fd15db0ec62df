/**
 * The conformance spec of this operator: `npx kubeloop verify` runs kubeloop's conformance checks
 * on it — converging from nothing and from messy starts, idempotent reconciles, repaired outputs,
 * a rebuildable status, missed watch events, watch expiry, a cache that heals, crashes, finalizers,
 * transient failures and honest `observedGeneration` — on a local control plane, under injected
 * faults, and prints a table. Add the inputs your kind reads (ConfigMaps, Services, ...) to the fixtures.
 */
import type { KubeObject } from "kubeloop";
import { defineConformance } from "kubeloop/testing/conformance";
import { __KIND__, type __KIND__Object } from "../src/api.ts";

function greeting(namespace: string, name: string, message: string): __KIND__Object {
  return {
    apiVersion: __KIND__.apiVersion,
    kind: __KIND__.kind,
    metadata: { name, namespace },
    spec: { message },
  };
}

// The type argument types the __KIND__ objects `mutate` (and `settled`) receive.
export default defineConformance<__KIND__Object>({
  operator: "src/operator.ts",
  fixtures: (namespace): KubeObject[] => [greeting(namespace, "hello", "Hello, world")],
  // A spec change that changes the output: the ConfigMap must follow it.
  mutate: (obj, round) => ({ ...obj, spec: { ...obj.spec, message: `Hello again (${round})` } }),
});
