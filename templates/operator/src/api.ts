/**
 * The __KIND__ kind, defined once: its TypeScript type, runtime validation and CRD all come from
 * these schemas (`npm run generate` writes the CRD to config/crds.yaml).
 */
import { defineConditionSet, defineKind, type ObjectOf, z } from "kubeloop";

/** __KIND__'s conditions: `ConfigMapReady` rolls up into the summary condition `Ready`. */
export const __KIND__Conditions = defineConditionSet({
  summary: "Ready",
  dependents: { ConfigMapReady: "normal-true" },
});

export const __KIND__ = defineKind({
  group: "__GROUP__",
  version: "v1alpha1",
  kind: "__KIND__",
  scope: "Namespaced",
  spec: z.object({
    message: z.string().min(1).max(256).describe("The text the operator publishes in a ConfigMap."),
  }),
  status: z.object({
    configMapName: z.string().optional().describe("The ConfigMap holding the message."),
  }),
  conditions: __KIND__Conditions,
  printerColumns: [{ name: "Message", type: "string", jsonPath: ".spec.message" }],
});

/** A __KIND__ object as stored in the cluster. */
export type __KIND__Object = ObjectOf<typeof __KIND__>;
