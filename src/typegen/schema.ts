/**
 * The schema dialect types are generated from: OpenAPI v3 as the apiserver publishes it under
 * `/openapi/v3` (with `$ref`s between definitions) and as CRDs carry it (structural, inline).
 */

/** One schema node. Only what decides a TypeScript type or its documentation is named. */
export interface Schema {
  $ref?: string;
  type?: string;
  format?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  nullable?: boolean;
  required?: string[];
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  "x-kubernetes-int-or-string"?: boolean;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-embedded-resource"?: boolean;
  "x-kubernetes-list-type"?: string;
  "x-kubernetes-list-map-keys"?: string[];
  "x-kubernetes-map-type"?: string;
  /** The kinds a definition is the schema of (`/openapi/v3` definitions only). */
  "x-kubernetes-group-version-kind"?: GroupVersionKind[];
}

/** A kind and the group and version serving it (`""` is the core group). */
export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** True when the node holds either an integer or a string (`intstr.IntOrString`). */
export function isIntOrString(schema: Schema): boolean {
  return schema["x-kubernetes-int-or-string"] === true || schema.format === "int-or-string";
}
