/**
 * Schema nodes to TypeScript: a type expression for any node, an interface for an object node.
 * Names of other types come from a {@link TypeScope}, which resolves `$ref`s and declares the
 * interfaces of inline objects, so the same code serves the apiserver's definitions and CRDs.
 */
import { docComment } from "./doc.ts";
import { isIntOrString, type Schema } from "./schema.ts";

/** What a module offers the emitter: names for `$ref`s, and room for the types of inline objects. */
export interface TypeScope {
  /** The TypeScript name `ref` (`#/components/schemas/<name>`) stands for in this module. */
  refName(ref: string): string;
  /** Declares the interface of an inline object, named after `nameHint`; returns its name. */
  declareObject(nameHint: string, schema: Schema): string;
}

/** A property whose type is fixed rather than read from the schema (a kind's `apiVersion`, ...). */
export interface FixedProperty {
  readonly type: string;
  readonly required: boolean;
}

/** The TypeScript type of the values `schema` accepts. `nameHint` names inline objects. */
export function typeExpression(schema: Schema, scope: TypeScope, nameHint: string): string {
  const type = baseType(schema, scope, nameHint);
  return schema.nullable ? `${type} | null` : type;
}

function baseType(schema: Schema, scope: TypeScope, nameHint: string): string {
  if (isIntOrString(schema)) return "number | string";
  if (schema.$ref) return scope.refName(schema.$ref);
  const refs = (schema.allOf ?? []).filter((branch) => branch.$ref);
  if (refs.length > 0) return refs.map((branch) => scope.refName(branch.$ref as string)).join(" & ");
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(" | ");
  switch (schema.type) {
    case "string":
      return "string";
    case "integer":
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "array":
      return arrayOf(schema.items ? typeExpression(schema.items, scope, nameHint) : "unknown");
    case "object":
      return objectType(schema, scope, nameHint);
    default:
      return untypedType(schema, scope, nameHint);
  }
}

function arrayOf(item: string): string {
  return isCompound(item) ? `(${item})[]` : `${item}[]`;
}

/** True for a union or intersection at the top level, which `[]` would bind to only in part. */
function isCompound(type: string): boolean {
  let depth = 0;
  for (const char of type) {
    if ("<({[".includes(char)) depth++;
    else if (">)}]".includes(char)) depth--;
    else if (depth === 0 && (char === "|" || char === "&")) return true;
  }
  return false;
}

function objectType(schema: Schema, scope: TypeScope, nameHint: string): string {
  if (schema.properties && Object.keys(schema.properties).length > 0) {
    return scope.declareObject(nameHint, schema);
  }
  const values = schema.additionalProperties;
  if (typeof values === "object") return `Record<string, ${typeExpression(values, scope, nameHint)}>`;
  return "Record<string, unknown>";
}

/** A node without `type`: a union of typed branches (`Quantity`), an object by shape, or anything. */
function untypedType(schema: Schema, scope: TypeScope, nameHint: string): string {
  const branches = schema.oneOf ?? schema.anyOf ?? [];
  if (branches.length > 0 && branches.every((branch) => branch.type || branch.$ref)) {
    return [...new Set(branches.map((branch) => typeExpression(branch, scope, nameHint)))].join(" | ");
  }
  if (schema.properties || schema.additionalProperties) return objectType(schema, scope, nameHint);
  return "unknown";
}

/** How {@link interfaceDeclaration} treats some properties, and names inline objects. */
export interface InterfaceOptions {
  /** Replaces the schema's type and requiredness of these properties. */
  readonly fixed?: Readonly<Record<string, FixedProperty>>;
  /** What inline objects' names start with (default: the interface's name): `Certificate` → `CertificateSpec`. */
  readonly nameBase?: string;
}

/**
 * `export interface <name> { ... }` for an object node, documented. Unknown fields the schema
 * preserves are allowed.
 */
export function interfaceDeclaration(
  name: string,
  schema: Schema,
  scope: TypeScope,
  { fixed = {}, nameBase = name }: InterfaceOptions = {},
): string {
  const required = new Set(schema.required ?? []);
  const declared = Object.fromEntries(Object.keys(fixed).map((key): [string, Schema] => [key, {}]));
  const members = Object.entries({ ...declared, ...schema.properties }).map(([key, property]) => {
    const type = fixed[key]?.type ?? typeExpression(property, scope, `${nameBase}${pascalCase(key)}`);
    const optional = (fixed[key]?.required ?? required.has(key)) ? "" : "?";
    return `${docComment(property, "  ")}  ${propertyKey(key)}${optional}: ${type};\n`;
  });
  if (schema["x-kubernetes-preserve-unknown-fields"]) members.push("  [field: string]: unknown;\n");
  return `${docComment(schema)}export interface ${name} {\n${members.join("")}}\n`;
}

/** `export type <name> = ...;` for a node that is not an object with properties. */
export function aliasDeclaration(name: string, schema: Schema, scope: TypeScope): string {
  return `${docComment(schema)}export type ${name} = ${typeExpression(schema, scope, name)};\n`;
}

/** True when `schema` is best declared as an interface (an object with properties). */
export function isObjectWithProperties(schema: Schema): boolean {
  return Object.keys(schema.properties ?? {}).length > 0;
}

function propertyKey(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
}

/** `podFailurePolicy` → `PodFailurePolicy`, `x-kubernetes-list-type` → `XKubernetesListType`. */
export function pascalCase(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]?.toUpperCase() + part.slice(1))
    .join("");
}

/** The name of the interface of a kind's objects: `DeploymentObject` for `Deployment`. */
export function objectTypeName(kind: string): string {
  return `${kind}Object`;
}

/**
 * The object type under the kind's own name (`CronJob`), merged with its descriptor of that name,
 * so that `import type { CronJob }` names the object as peers' users write it.
 */
export function kindTypeDeclaration(kind: string, objectType = objectTypeName(kind)): string {
  return (
    `/** The object type of kind ${kind}, the same as \`${objectTypeName(kind)}\`; the value \`${kind}\` is its descriptor. */\n` +
    `export type ${kind} = ${objectType};\n`
  );
}

/** A resource as API discovery describes it: what a descriptor is made of. */
export interface ResourceInfo {
  readonly apiVersion: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
  readonly subresources: readonly string[];
}

/** The properties every kind's object has, typed: its `apiVersion` and `kind`, and `metadata`. */
export function kindProperties(resource: ResourceInfo, objectMeta: string): Record<string, FixedProperty> {
  return {
    apiVersion: { type: JSON.stringify(resource.apiVersion), required: true },
    kind: { type: JSON.stringify(resource.kind), required: true },
    metadata: { type: objectMeta, required: true },
  };
}

/**
 * `export const <Kind> = resourceType<<Kind>Object>(...)`: the kind's descriptor, documented;
 * `name` and `objectType` replace `<Kind>` and `<Kind>Object`.
 */
export function descriptorDeclaration(
  resource: ResourceInfo,
  name = resource.kind,
  objectType = objectTypeName(resource.kind),
): string {
  const { apiVersion, kind, plural, namespaced, subresources } = resource;
  const scope = namespaced ? "namespaced" : "cluster-scoped";
  const served =
    subresources.length > 0 ? `; subresources ${subresources.map((s) => `\`${s}\``).join(", ")}` : "";
  const args = [...[apiVersion, kind, plural].map((arg) => JSON.stringify(arg)), String(namespaced)];
  if (subresources.length > 0) args.push(JSON.stringify(subresources));
  return (
    `/** The ${kind} kind of ${apiVersion}: resource \`${plural}\`, ${scope}${served}. */\n` +
    `export const ${name} = resourceType<${objectType}>(${args.join(", ")});\n`
  );
}
