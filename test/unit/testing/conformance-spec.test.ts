import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../../src/api/index.ts";
import { type ConformanceSpec, defineConformance } from "../../../src/testing/conformance/index.ts";

interface GreetingObject extends KubeObject {
  spec: { message: string; replicas: number };
}

const greeting = (namespace: string): GreetingObject => ({
  apiVersion: "demo.example.com/v1",
  kind: "Greeting",
  metadata: { name: "hello", namespace },
  spec: { message: "hi", replicas: 1 },
});

describe("defineConformance", () => {
  it("types mutate and settled after its type argument", () => {
    const spec: ConformanceSpec = defineConformance<GreetingObject>({
      operator: "src/operator.ts",
      fixtures: (namespace) => [greeting(namespace)],
      mutate: (obj, round) => ({ ...obj, spec: { ...obj.spec, replicas: obj.spec.replicas + round } }),
      settled: (obj) => obj.spec.message.length > 0,
    });
    defineConformance<GreetingObject>({
      operator: "o.ts",
      fixtures: () => [],
      // @ts-expect-error a Greeting's spec has no field "size"
      settled: (obj) => obj.spec.size > 0,
    });
    const mutated = spec.mutate?.(greeting("ns"), 2) as GreetingObject;
    assert.deepEqual(mutated.spec, { message: "hi", replicas: 3 });
    assert.equal(spec.settled?.(greeting("ns")), true);
  });

  it("infers the type from mutate's parameter", () => {
    const spec = defineConformance({
      operator: "src/operator.ts",
      fixtures: (namespace) => [greeting(namespace)],
      mutate: (obj: GreetingObject, round) => ({
        ...obj,
        spec: { ...obj.spec, message: `changed ${round}` },
      }),
    });
    const mutated = spec.mutate?.(greeting("ns"), 1) as GreetingObject | undefined;
    assert.equal(mutated?.spec.message, "changed 1");
  });
});
