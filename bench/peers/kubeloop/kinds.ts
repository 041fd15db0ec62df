/**
 * The benchmark's Widget kind, defined once with kubeloop: its CRD (written by the runner with
 * `crdYaml` and installed for every contender alike) and the conditions its status carries.
 */
import { defineConditionSet, defineKind, type ObjectOf, z } from "../../../src/index.ts";
import { CONFIGMAP_READY, GROUP, KIND, VERSION } from "../shared/widget.ts";

/** `ConfigMapReady` rolls up into the summary condition `Ready`. */
export const WidgetConditions = defineConditionSet({
  summary: "Ready",
  dependents: { [CONFIGMAP_READY]: "normal-true" } as { ConfigMapReady: "normal-true" },
});

export const Widget = defineKind({
  group: GROUP,
  version: VERSION,
  kind: KIND,
  scope: "Namespaced",
  spec: z.object({ message: z.string().describe("The text the Widget's ConfigMap holds.") }),
  conditions: WidgetConditions,
});

/** A Widget as stored. */
export type WidgetObject = ObjectOf<typeof Widget>;
