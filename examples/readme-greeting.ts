// #region readme-greeting-kind
import { defineConditionSet, defineKind, z } from "kubeloop";

export const GreetingConditions = defineConditionSet({
  summary: "Ready",
  dependents: { ConfigMapReady: "normal-true" },
});

export const Greeting = defineKind({
  group: "example.com",
  version: "v1alpha1",
  kind: "Greeting",
  scope: "Namespaced",
  spec: z.object({ message: z.string().min(1).max(256) }),
  status: z.object({ configMapName: z.string().optional() }),
  conditions: GreetingConditions,
  printerColumns: [{ name: "Message", type: "string", jsonPath: ".spec.message" }],
});
// #endregion
