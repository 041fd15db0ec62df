import type { ObjectOf } from "kubeloop";
import { defineConformance } from "kubeloop/testing/conformance";
import { Greeting } from "../readme-greeting.ts";

type GreetingObject = ObjectOf<typeof Greeting>;

// #region defineConformance
export default defineConformance<GreetingObject>({
  operator: "src/operator.ts",
  fixtures: (namespace) => [
    {
      apiVersion: Greeting.apiVersion,
      kind: Greeting.kind,
      metadata: { name: "hello", namespace },
      spec: { message: "hi" },
    },
  ],
  mutate: (obj, round) => ({ ...obj, spec: { ...obj.spec, message: `changed ${round}` } }),
});
// #endregion
