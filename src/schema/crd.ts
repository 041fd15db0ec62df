/**
 * CustomResourceDefinition generation: a kind's versions, schemas, status subresource, printer
 * columns and names as an apiextensions.k8s.io/v1 object, checked to be structural.
 */
import { conditionsField, observedGenerationField, printerColumnsFor } from "./condition-schema.ts";
import { SchemaError } from "./errors.ts";
import type { AnyKind } from "./kind.ts";
import { VALIDATIONS } from "./markers.ts";
import { canonicalOrder, toStructuralSchema } from "./openapi.ts";
import { assertStructural } from "./structural.ts";
import type { CelRule, CrdObject, CrdVersion, JSONSchemaProps } from "./types.ts";
import type { KindVersion } from "./versions.ts";
import { toYaml } from "./yaml.ts";

const apiVersionDescription =
  "APIVersion defines the versioned schema of this representation of an object.\n" +
  "Servers should convert recognized schemas to the latest internal value, and\n" +
  "may reject unrecognized values.\n" +
  "More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources";
const kindDescription =
  "Kind is a string value representing the REST resource this object represents.\n" +
  "Servers may infer this from the endpoint the client submits requests to.\n" +
  "Cannot be updated.\n" +
  "In CamelCase.\n" +
  "More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";
/** Fields kubeloop adds to every status; a status schema must not declare them. */
const reservedStatusFields = ["conditions", "observedGeneration"];

/**
 * The CustomResourceDefinition of a kind. Throws `SchemaError` (with the JSON path) when a schema
 * cannot be made structural.
 *
 * @example
 * ```ts
 * await client.apply(CustomResourceDefinition, crdFor(Widget));
 * ```
 */
export function crdFor(kind: AnyKind): CrdObject {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${kind.plural}.${kind.group}` },
    spec: {
      group: kind.group,
      names: {
        kind: kind.kind,
        listKind: kind.listKind,
        plural: kind.plural,
        singular: kind.singular,
        ...(kind.shortNames.length > 0 ? { shortNames: [...kind.shortNames] } : {}),
        ...(kind.categories.length > 0 ? { categories: [...kind.categories] } : {}),
      },
      scope: kind.scope,
      versions: kind.versions.map((version) => crdVersion(kind, version)),
    },
  };
}

/** The CRDs of several kinds as one YAML stream. */
export function crdYaml(kinds: readonly AnyKind[]): string {
  return toYaml(kinds.map(crdFor));
}

function hasStatus(kind: AnyKind, version: KindVersion): boolean {
  return version.status !== undefined || kind.conditions !== undefined;
}

function crdVersion(kind: AnyKind, version: KindVersion): CrdVersion {
  const root = objectSchema(kind, version);
  assertStructural(root, kind.kind);
  return {
    name: version.name,
    served: version.served,
    storage: version.storage,
    ...(version.deprecated ? { deprecated: true } : {}),
    ...(version.deprecationWarning === undefined ? {} : { deprecationWarning: version.deprecationWarning }),
    schema: { openAPIV3Schema: root },
    ...(hasStatus(kind, version) ? { subresources: { status: {} } } : {}),
    additionalPrinterColumns: printerColumnsFor(kind.conditions, version.printerColumns),
  };
}

function objectSchema(kind: AnyKind, version: KindVersion): JSONSchemaProps {
  const spec = specSchema(kind, version);
  return {
    ...(kind.description === undefined ? {} : { description: kind.description }),
    properties: {
      apiVersion: { description: apiVersionDescription, type: "string" },
      kind: { description: kindDescription, type: "string" },
      metadata: { type: "object" },
      spec,
      ...(hasStatus(kind, version) ? { status: statusSchema(kind, version) } : {}),
    },
    ...(spec.default === undefined ? { required: ["spec"] } : {}),
    type: "object",
    ...(kind.maxNameLength === undefined
      ? {}
      : { [VALIDATIONS]: [nameLengthRule(kind, kind.maxNameLength)] }),
  };
}

/** The root rule that refuses names longer than the kind's children can be named after. */
function nameLengthRule(kind: AnyKind, max: number): CelRule {
  return {
    rule: `size(self.metadata.name) <= ${max}`,
    message: `metadata.name must be at most ${max} characters: the ${kind.kind} controller names its children after it`,
    reason: "FieldValueInvalid",
  };
}

/**
 * The spec schema with the kind's CEL rules. A spec without required fields defaults to `{}`, so
 * the apiserver applies nested defaults even when the object has no spec.
 */
function specSchema(kind: AnyKind, version: KindVersion): JSONSchemaProps {
  const spec = requireObject(
    toStructuralSchema(version.spec, { kindName: kind.kind, path: ".spec" }),
    kind,
    ".spec",
  );
  const rules = [...(spec[VALIDATIONS] ?? []), ...version.validations];
  const needsDefault = (spec.required ?? []).length === 0 && spec.default === undefined;
  return canonicalOrder({
    description: `Desired state of the ${kind.kind}.`,
    ...spec,
    ...(needsDefault ? { default: {} } : {}),
    ...(rules.length > 0 ? { [VALIDATIONS]: rules } : {}),
  }) as JSONSchemaProps;
}

function statusSchema(kind: AnyKind, version: KindVersion): JSONSchemaProps {
  const base: JSONSchemaProps = version.status
    ? requireObject(
        toStructuralSchema(version.status, { kindName: kind.kind, path: ".status" }),
        kind,
        ".status",
      )
    : { type: "object" };
  for (const field of reservedStatusFields) {
    if (base.properties?.[field] !== undefined) {
      throw new SchemaError(
        kind.kind,
        `.status.${field}`,
        `the status schema declares ${field}, which kubeloop adds to every kind with the standard schema`,
        `remove ${field} from the status schema; it is typed on the object as status.${field}`,
      );
    }
  }
  return canonicalOrder({
    description: `Observed state of the ${kind.kind}, written by its controller.`,
    ...base,
    properties: {
      ...base.properties,
      conditions: conditionsField(),
      observedGeneration: observedGenerationField(),
    },
  }) as JSONSchemaProps;
}

function requireObject(schema: JSONSchemaProps, kind: AnyKind, path: string): JSONSchemaProps {
  if (schema.type !== "object") {
    throw new SchemaError(
      kind.kind,
      path,
      `the schema is of type ${schema.type ?? "(none)"}`,
      "make it a z.object(...)",
    );
  }
  return schema;
}
