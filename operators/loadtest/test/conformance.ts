/**
 * The conformance spec of the LoadTest operator (`kubeloop verify --spec
 * operators/loadtest/test/conformance.ts`): a test script and a LoadTest of two workers, which kwok
 * runs to success in a second. Its output is the workers' Job. A LoadTest runs once: a deleted Job
 * is left deleted (reported as `JobDeleted` while workers ran), never run again; and its spec is
 * immutable, so there is no spec change to judge generation honesty with. The Job's pod template is
 * immutable too: tampering changes a label the operator sets, which it must put back.
 */
import type { ConfigMapObject, KubeObject } from "kubeloop";
import { defineConformance } from "kubeloop/testing/conformance";
import { LoadTest } from "../api.ts";
import { SCRIPT_KEY } from "../job.ts";

const script = `config:
  target: "http://checkout.shop.svc:8080"
  phases:
    - duration: 10
      arrivalRate: 1
scenarios:
  - flow:
      - get:
          url: "/health"
`;

export default defineConformance({
  operator: new URL("../operator.ts", import.meta.url),
  fixtures: (namespace): KubeObject[] => [
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "checkout-script", namespace },
      data: { [SCRIPT_KEY]: script },
    } as ConfigMapObject,
    {
      apiVersion: LoadTest.apiVersion,
      kind: LoadTest.kind,
      metadata: { name: "checkout", namespace },
      spec: {
        count: 2,
        testScript: { config: { configMap: "checkout-script" } },
        podAnnotations: { "kubeloop.dev/run-duration": "1s" },
      },
    } as KubeObject,
  ],
  outputDeletion: "leave",
  // The Job is not exclusive: its pod template is immutable and Job-aware tools (a queue
  // controller, a mesh injector) write to it too.
  exclusiveOutputs: false,
  tamper: () => [
    { op: "test", path: "/metadata/labels/artillery.io~1part-of", value: "loadtest" },
    { op: "replace", path: "/metadata/labels/artillery.io~1part-of", value: "tampered" },
  ],
  logLevel: "warn",
});
