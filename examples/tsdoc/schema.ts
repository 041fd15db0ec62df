import { type Client, defineConditionSet, defineKind, type InputOf, type ObjectOf, z } from "kubeloop";
import { CustomResourceDefinition } from "kubeloop/api/apiextensions.k8s.io/v1";
import { crdFor, preserveUnknown, toStructuralSchema, withRules } from "kubeloop/schema";

declare const client: Client;
const WidgetConditions = defineConditionSet({ summary: "Ready", dependents: { Available: "normal-true" } });

// #region defineKind
const Widget = defineKind({
  group: "example.com",
  version: "v1",
  kind: "Widget",
  scope: "Namespaced",
  spec: z.object({ replicas: z.int().min(0).default(1) }),
  status: z.object({ readyReplicas: z.int().optional() }),
  conditions: WidgetConditions,
});
type Widget = ObjectOf<typeof Widget>; // the object type, named as the kind: spec.replicas: number
type WidgetInput = InputOf<typeof Widget>; // what creates one: spec.replicas?: number

// #endregion

export { Widget, type WidgetInput };

// #region crdFor
await client.apply(CustomResourceDefinition, crdFor(Widget));
// #endregion

// #region preserveUnknown
const spec = z.object({ values: preserveUnknown() });
// #endregion

// #region withRules
const range = withRules(z.object({ min: z.int(), max: z.int() }), {
  rule: "self.min <= self.max",
  message: "min must not exceed max",
  fieldPath: ".min",
});
// #endregion

// #region toStructuralSchema
toStructuralSchema(z.object({ replicas: z.int().min(0) }), { path: ".spec" });
// { type: "object", properties: { replicas: { type: "integer", minimum: 0 } }, required: ["replicas"] }
// #endregion

console.log(spec, range);
