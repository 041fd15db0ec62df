/**
 * zod schema → structural OpenAPI v3 schema: zod's conversion, our rewrite, a canonical key order
 * and the structural check, in that order.
 */
import type { z } from "zod";
import { isNode, type Node } from "./node.ts";
import { rewriteSchema } from "./rewrite.ts";
import { assertStructural } from "./structural.ts";
import type { JSONSchemaProps } from "./types.ts";
import { zodToJsonSchema } from "./zod-json.ts";

/** Where a schema sits, for error messages. */
export interface SchemaSite {
  /** The kind the schema belongs to. */
  readonly kindName?: string;
  /** The object path of the schema's root, e.g. `.spec`. */
  readonly path?: string;
}

/**
 * Converts a zod schema to a structural OpenAPI v3 schema the apiserver accepts in a CRD, or
 * throws a `SchemaError` naming the path and the fix.
 *
 * @example
 * ```ts
 * toStructuralSchema(z.object({ replicas: z.int().min(0) }), { path: ".spec" });
 * // { type: "object", properties: { replicas: { type: "integer", minimum: 0 } }, required: ["replicas"] }
 * ```
 */
export function toStructuralSchema(schema: z.ZodType, site: SchemaSite = {}): JSONSchemaProps {
  const kindName = site.kindName ?? "";
  const path = site.path ?? "";
  const rewritten = canonicalOrder(rewriteSchema(zodToJsonSchema(schema, kindName, path), kindName, path));
  assertStructural(rewritten, kindName, path);
  return rewritten as JSONSchemaProps;
}

/** Sorts schema keywords alphabetically (as controller-gen does), keeping fields in declaration order. */
export function canonicalOrder(node: Node): Node {
  const out: Node = {};
  for (const key of Object.keys(node).sort()) {
    const value = node[key];
    if (key === "properties" && isNode(value)) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [name, canonicalOrder(child as Node)]),
      );
    } else if ((key === "items" || key === "additionalProperties" || key === "not") && isNode(value)) {
      out[key] = canonicalOrder(value);
    } else if ((key === "allOf" || key === "anyOf" || key === "oneOf") && Array.isArray(value)) {
      out[key] = value.map((branch) => (isNode(branch) ? canonicalOrder(branch) : branch));
    } else {
      out[key] = value;
    }
  }
  return out;
}
