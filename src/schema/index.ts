/**
 * @module schema
 *
 * Schema-first kinds. A custom kind is defined once, in TypeScript, with zod 4 schemas for its
 * spec and status; {@link defineKind} turns that into a typed `ResourceType` (object type inferred
 * from the schemas) with runtime spec validation for reconcilers, and the CustomResourceDefinition
 * ({@link crdFor}, {@link crdYaml}) with a structural schema, the metav1.Condition list, the status
 * subresource and printer columns.
 *
 * CRD schemas come from zod's OpenAPI 3.0 output, rewritten to the structural dialect and then
 * checked statically, so anything the apiserver would reject fails here with the JSON path and a
 * fix. Kubernetes markers are set with helpers ({@link preserveUnknown}, {@link withRules},
 * {@link immutable}, {@link listMap}) or the same `x-kubernetes-*` keys in `.meta()`.
 *
 * Not for: talking to a cluster (apply the generated objects with `kubeloop/client`), computing
 * conditions (`kubeloop/status`), RBAC and deployment manifests (`kubeloop/generate`), or
 * validating objects of built-in kinds.
 *
 * @example
 * ```ts
 * import { defineKind, immutable, z } from "kubeloop";
 * import { crdYaml } from "kubeloop/schema";
 *
 * export const Widget = defineKind({
 *   group: "example.com",
 *   version: "v1",
 *   kind: "Widget",
 *   scope: "Namespaced",
 *   spec: z.object({
 *     size: z.enum(["small", "large"]).default("small"),
 *     replicas: z.int().min(0).max(10),
 *     owner: immutable(z.string().min(1)),
 *   }),
 *   status: z.object({ readyReplicas: z.int().optional() }),
 *   printerColumns: [{ name: "Replicas", type: "integer", jsonPath: ".spec.replicas" }],
 * });
 *
 * const spec = Widget.parseSpec({ replicas: 2, owner: "me" }); // typed, defaults applied
 * const yaml = crdYaml([Widget]);
 * ```
 */
export { AGE_COLUMN, conditionSchema, printerColumnsFor } from "./condition-schema.ts";
export { crdFor, crdYaml } from "./crd.ts";
export { KindDefinitionError, SchemaError, SpecValidationError } from "./errors.ts";
export {
  type AnyKind,
  defineKind,
  type Kind,
  type KindInput,
  type KindObject,
  type KindOptions,
  type KindStatus,
  type KindStatusBase,
} from "./kind.ts";
export { immutable, listMap, PRESERVE_UNKNOWN, preserveUnknown, VALIDATIONS, withRules } from "./markers.ts";
export { pluralize } from "./names.ts";
export { type SchemaSite, toStructuralSchema } from "./openapi.ts";
export { assertStructural } from "./structural.ts";
export type {
  CelRule,
  ConditionSetLike,
  CrdObject,
  CrdVersion,
  JSONSchemaProps,
  KindCondition,
  PrinterColumn,
} from "./types.ts";
export type { KindVersion, VersionOptions } from "./versions.ts";
export { toYaml } from "./yaml.ts";
