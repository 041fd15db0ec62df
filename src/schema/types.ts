/**
 * The Kubernetes shapes this folder produces: structural OpenAPI schemas (apiextensions/v1
 * `JSONSchemaProps`), CEL rules, printer columns and the CustomResourceDefinition object.
 */
import type { CustomResourceDefinitionObject } from "../api/index.ts";

/** A CEL validation rule (`x-kubernetes-validations` entry). */
export interface CelRule {
  /** The CEL expression; `self` is the value at the node, `oldSelf` the previous value on update. */
  readonly rule: string;
  /** Shown to the user when the rule fails. Single line. */
  readonly message?: string;
  /** A CEL expression producing the message. */
  readonly messageExpression?: string;
  /** The field the error is reported on, relative to the node, e.g. `.replicas`. */
  readonly fieldPath?: string;
  /** The machine-readable failure reason. */
  readonly reason?:
    | "FieldValueInvalid"
    | "FieldValueForbidden"
    | "FieldValueRequired"
    | "FieldValueDuplicate";
  /** Evaluate a transition rule on create too, with `oldSelf` an optional. */
  readonly optionalOldSelf?: boolean;
}

/** A structural OpenAPI v3 schema node, as the apiserver accepts it in a CRD. */
export interface JSONSchemaProps {
  type?: "object" | "array" | "string" | "integer" | "number" | "boolean";
  description?: string;
  title?: string;
  format?: string;
  default?: unknown;
  nullable?: boolean;
  enum?: unknown[];
  example?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  required?: string[];
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps;
  items?: JSONSchemaProps;
  allOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  "x-kubernetes-preserve-unknown-fields"?: true;
  "x-kubernetes-int-or-string"?: true;
  "x-kubernetes-embedded-resource"?: boolean;
  "x-kubernetes-list-type"?: "atomic" | "set" | "map";
  "x-kubernetes-list-map-keys"?: string[];
  "x-kubernetes-map-type"?: "granular" | "atomic";
  "x-kubernetes-validations"?: CelRule[];
}

/** A `kubectl get` column (`additionalPrinterColumns` entry). */
export interface PrinterColumn {
  /** Column header. */
  readonly name: string;
  /** How the value is rendered; `date` renders as an age. */
  readonly type: "string" | "integer" | "number" | "boolean" | "date";
  /** A JSONPath into the object, starting with `.`, e.g. `.spec.replicas`. */
  readonly jsonPath: string;
  readonly description?: string;
  readonly format?: "int32" | "int64" | "float" | "double" | "byte" | "date" | "date-time" | "password";
  /** 0 (default) is always shown; higher only with `-o wide`. */
  readonly priority?: number;
}

/** One entry of `spec.versions` of a CRD. */
export type CrdVersion = {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema: { openAPIV3Schema: JSONSchemaProps };
  subresources?: { status?: Record<string, never> };
  additionalPrinterColumns?: PrinterColumn[];
};

/** An apiextensions.k8s.io/v1 CustomResourceDefinition as `crdFor` produces it. */
export interface CrdObject extends CustomResourceDefinitionObject {
  metadata: { name: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  spec: CustomResourceDefinitionObject["spec"] & { versions: CrdVersion[] };
}

/** The metav1.Condition shape every kubeloop kind has under `status.conditions`. */
export interface KindCondition {
  /** CamelCase condition type, e.g. `Ready`. */
  type: string;
  status: "True" | "False" | "Unknown";
  /** CamelCase reason for the last transition. */
  reason: string;
  message: string;
  /** RFC 3339 time of the last change of `status`. */
  lastTransitionTime: string;
  /** The `.metadata.generation` the condition was computed from. */
  observedGeneration?: number;
}

/**
 * What `defineKind` needs from a condition set (built with `src/status`): the summary condition
 * type (`Ready`, `Succeeded`) and every type the controller writes.
 */
export interface ConditionSetLike {
  readonly summary: string;
  readonly types: readonly string[];
}
