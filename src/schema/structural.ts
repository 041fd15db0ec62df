/**
 * Step three of CRD schema generation: a static check that a schema is structural and uses only
 * what apiextensions/v1 accepts, so a bad kind fails at build time with the JSON path named rather
 * than as a 422 from the apiserver. The rules follow KEP-2335 and apiextensions validation.
 */
import { SchemaError } from "./errors.ts";
import { PRESERVE_UNKNOWN, VALIDATIONS } from "./markers.ts";
import { branchPath, isNode, itemsPath, type Node, propPath, valuesPath } from "./node.ts";
import { checkRules } from "./rules.ts";
import type { JSONSchemaProps } from "./types.ts";

interface CheckContext {
  readonly kindName: string;
  /** Inside `allOf`/`anyOf`/`oneOf`/`not`, which may only constrain values. */
  readonly inJunction: boolean;
  /** Whether old and new values can be paired here, as transition rules (`oldSelf`) require. */
  readonly correlatable: boolean;
  /** The node owning the junction, when inside one. */
  readonly outer?: Node;
}

const types = new Set(["object", "array", "string", "integer", "number", "boolean"]);
const scalarTypes = new Set(["string", "integer", "number", "boolean"]);
const allowedKeys = new Set([
  ...["type", "description", "title", "format", "default", "nullable", "enum", "example", "externalDocs"],
  ...["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  ...["minLength", "maxLength", "pattern", "minItems", "maxItems", "minProperties", "maxProperties"],
  ...["required", "properties", "additionalProperties", "items", "allOf", "anyOf", "oneOf", "not"],
  ...[PRESERVE_UNKNOWN, "x-kubernetes-int-or-string", "x-kubernetes-embedded-resource", VALIDATIONS],
  ...["x-kubernetes-list-type", "x-kubernetes-list-map-keys", "x-kubernetes-map-type"],
]);
const forbiddenKeys: Record<string, { cause: string; fix: string }> = {
  $ref: { cause: "references ($ref) are not allowed", fix: "inline the schema" },
  definitions: { cause: "definitions are not allowed", fix: "inline the schema" },
  $defs: { cause: "$defs are not allowed", fix: "inline the schema" },
  dependencies: {
    cause: "dependencies are not supported",
    fix: "express the dependency as a CEL rule (withRules)",
  },
  patternProperties: {
    cause: "patternProperties are not supported",
    fix: "use z.record(z.string(), ...) and check keys with a CEL rule such as self.all(k, k.matches('^a'))",
  },
  propertyNames: {
    cause: "propertyNames (constrained record keys) are not supported",
    fix: "use z.record(z.string(), ...) and check keys with a CEL rule such as self.all(k, k.matches('^a'))",
  },
  additionalItems: {
    cause: "additionalItems (tuples) are not supported",
    fix: "use an array of one item type",
  },
  uniqueItems: {
    cause: "uniqueItems is forbidden (its runtime is quadratic)",
    fix: 'mark the array .meta({ "x-kubernetes-list-type": "set" }) instead',
  },
};
/** Keys a junction branch must not set (it may only constrain values). */
const junctionForbidden = ["type", "description", "default", "nullable", "additionalProperties"];

/**
 * Throws a {@link SchemaError} naming the JSON path of the first node the apiserver would reject:
 * a missing `type`, a forbidden keyword, `additionalProperties` next to `properties`, a bad list
 * or map marker, a pattern RE2 cannot compile, or a malformed CEL rule.
 */
export function assertStructural(root: JSONSchemaProps | Node, kindName = "", base = ""): void {
  checkNode(root as Node, base, { kindName, inJunction: false, correlatable: true });
}

function checkNode(node: Node, path: string, ctx: CheckContext): void {
  checkKeys(node, path, ctx);
  if (ctx.inJunction) checkJunctionBranch(node, path, ctx);
  else checkType(node, path, ctx);
  checkObject(node, path, ctx);
  checkListMarkers(node, path, ctx);
  checkPattern(node, path, ctx);
  checkRules(node[VALIDATIONS], node, path, ctx);
  checkChildren(node, path, ctx);
}

function fail(ctx: CheckContext, path: string, cause: string, fix: string): never {
  throw new SchemaError(ctx.kindName, path, cause, fix);
}

function checkKeys(node: Node, path: string, ctx: CheckContext): void {
  for (const key of Object.keys(node)) {
    const forbidden = forbiddenKeys[key];
    if (forbidden) fail(ctx, path, forbidden.cause, forbidden.fix);
    if (!allowedKeys.has(key)) {
      fail(
        ctx,
        path,
        `"${key}" is not a CRD schema keyword`,
        "remove it from .meta(); CRD schemas accept OpenAPI v3 keywords and the x-kubernetes-* extensions only",
      );
    }
  }
  if (node.enum !== undefined && (!Array.isArray(node.enum) || node.enum.length === 0)) {
    fail(ctx, path, "enum must be a non-empty list", "list at least one value");
  }
}

function checkType(node: Node, path: string, ctx: CheckContext): void {
  const intOrString = node["x-kubernetes-int-or-string"];
  const preserve = node[PRESERVE_UNKNOWN];
  if (intOrString !== undefined && intOrString !== true) {
    fail(ctx, path, "x-kubernetes-int-or-string must be true when set", "set it to true or remove it");
  }
  if (preserve !== undefined && preserve !== true) {
    fail(ctx, path, `${PRESERVE_UNKNOWN} must be true when set`, "set it to true or remove it");
  }
  if (intOrString === true && node.type !== undefined) {
    fail(ctx, path, "an int-or-string field must not also declare a type", "remove the type");
  }
  if (node.type === undefined) {
    if (intOrString === true || preserve === true) return;
    const union = node.anyOf ?? node.oneOf ?? node.allOf;
    fail(
      ctx,
      path,
      union
        ? "a union of different shapes has no single type, so it is not structural"
        : "the field has no type",
      union
        ? "only int-or-string (z.union([z.int(), z.string()])) and unions of literals are supported; model " +
            "alternatives as optional fields of one object and pick one with a CEL rule (withRules)"
        : "give the field a type, or mark it preserveUnknown(...)",
    );
  }
  if (typeof node.type !== "string" || !types.has(node.type)) {
    fail(
      ctx,
      path,
      `type ${JSON.stringify(node.type)} is not one of ${[...types].join(", ")}`,
      "use a single JSON type",
    );
  }
}

function checkJunctionBranch(node: Node, path: string, ctx: CheckContext): void {
  const misplaced = Object.keys(node).filter(
    (key) => junctionForbidden.includes(key) || key.startsWith("x-kubernetes-"),
  );
  if (misplaced.length > 0) {
    fail(
      ctx,
      path,
      `${misplaced.join(", ")} inside allOf/anyOf/oneOf/not, where only value constraints are allowed`,
      "only int-or-string and literal unions are supported; for other alternatives use optional fields of one " +
        "object and a CEL rule (withRules)",
    );
  }
  const outerProperties = isNode(ctx.outer?.properties) ? ctx.outer.properties : {};
  for (const key of Object.keys(isNode(node.properties) ? node.properties : {})) {
    if (!(key in outerProperties)) {
      fail(
        ctx,
        path,
        `field "${key}" is constrained inside a junction but not declared outside it`,
        "declare it on the object",
      );
    }
  }
  if (node.items !== undefined && !isNode(ctx.outer?.items)) {
    fail(
      ctx,
      path,
      "items are constrained inside a junction but not declared outside it",
      "declare the array's items",
    );
  }
}

function checkObject(node: Node, path: string, ctx: CheckContext): void {
  const extra = node.additionalProperties;
  if (extra !== undefined && !isNode(extra)) {
    fail(
      ctx,
      path,
      `additionalProperties: ${JSON.stringify(extra)} is not allowed`,
      "remove it, or give map values a schema",
    );
  }
  if (extra !== undefined && node.properties !== undefined) {
    fail(
      ctx,
      path,
      "additionalProperties together with properties is not allowed",
      "use either declared fields (z.object) or a map (z.record), or preserveUnknown(z.looseObject(...))",
    );
  }
  const mapType = node["x-kubernetes-map-type"];
  if (mapType !== undefined && (node.type !== "object" || (mapType !== "granular" && mapType !== "atomic"))) {
    fail(ctx, path, "x-kubernetes-map-type must be granular or atomic, on an object", "fix the marker");
  }
  if (node["x-kubernetes-embedded-resource"] !== undefined && node.type !== "object") {
    fail(ctx, path, "x-kubernetes-embedded-resource requires type object", "put it on an object field");
  }
}

function checkListMarkers(node: Node, path: string, ctx: CheckContext): void {
  const listType = node["x-kubernetes-list-type"];
  const keys = node["x-kubernetes-list-map-keys"];
  if (keys !== undefined && listType !== "map") {
    fail(
      ctx,
      path,
      "x-kubernetes-list-map-keys without x-kubernetes-list-type: map",
      "use listMap(array, ...keys)",
    );
  }
  if (listType === undefined) return;
  if (node.type !== "array" || !["atomic", "set", "map"].includes(listType as string)) {
    fail(ctx, path, "x-kubernetes-list-type must be atomic, set or map, on an array", "fix the marker");
  }
  const items = isNode(node.items) ? node.items : {};
  if (
    listType === "set" &&
    !scalarTypes.has(items.type as string) &&
    items["x-kubernetes-map-type"] !== "atomic"
  ) {
    fail(ctx, path, "a list of type set needs scalar items", "use listMap for lists of objects");
  }
  if (listType === "map") checkListMapKeys(keys, items, path, ctx);
}

function checkListMapKeys(keys: unknown, items: Node, path: string, ctx: CheckContext): void {
  if (!Array.isArray(keys) || keys.length === 0 || items.type !== "object") {
    fail(
      ctx,
      path,
      "a list of type map needs object items and at least one key",
      "use listMap(array, ...keys)",
    );
  }
  const properties = isNode(items.properties) ? items.properties : {};
  const required = Array.isArray(items.required) ? items.required : [];
  for (const key of keys as string[]) {
    const field = properties[key];
    if (!isNode(field) || !scalarTypes.has(field.type as string)) {
      fail(
        ctx,
        path,
        `list map key "${key}" is not a scalar field of the items`,
        "key the list by a string or integer field",
      );
    }
    if (!required.includes(key) && field.default === undefined) {
      fail(ctx, path, `list map key "${key}" must be required or defaulted`, "make the key field required");
    }
  }
}

function checkPattern(node: Node, path: string, ctx: CheckContext): void {
  if (node.pattern === undefined) return;
  const problem = typeof node.pattern === "string" ? re2Problem(node.pattern) : "a non-string pattern";
  if (problem) {
    fail(
      ctx,
      path,
      `pattern ${JSON.stringify(node.pattern)} uses ${problem}, which the apiserver's RE2 engine does not support`,
      "rewrite the regular expression without lookarounds or backreferences, or check it in a CEL rule",
    );
  }
}

/** Finds JavaScript regex features RE2 lacks: lookarounds and backreferences. */
function re2Problem(pattern: string): string | undefined {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      if (!inClass && /[1-9k]/.test(pattern[i + 1] ?? "")) return "a backreference";
      i++;
    } else if (inClass) {
      inClass = c !== "]";
    } else if (c === "[") {
      inClass = true;
    } else if (pattern.startsWith("(?=", i) || pattern.startsWith("(?!", i)) {
      return "a lookahead";
    } else if (pattern.startsWith("(?<=", i) || pattern.startsWith("(?<!", i)) {
      return "a lookbehind";
    }
  }
  return undefined;
}

function checkChildren(node: Node, path: string, ctx: CheckContext): void {
  const properties = isNode(node.properties) ? node.properties : {};
  for (const [key, child] of Object.entries(properties)) {
    checkChild(
      child,
      propPath(path, key),
      within(ctx, (outer) => (isNode(outer.properties) ? outer.properties[key] : undefined)),
    );
  }
  if (node.items !== undefined) {
    if (!isNode(node.items))
      fail(ctx, path, "items must be one schema (tuples are not supported)", "use one item type");
    const correlatable = ctx.correlatable && node["x-kubernetes-list-type"] === "map";
    checkChild(node.items, itemsPath(path), { ...within(ctx, (outer) => outer.items), correlatable });
  }
  if (isNode(node.additionalProperties)) {
    checkChild(
      node.additionalProperties,
      valuesPath(path),
      within(ctx, (outer) => outer.additionalProperties),
    );
  }
  for (const junction of ["allOf", "anyOf", "oneOf"] as const) {
    const branches = node[junction];
    if (branches === undefined) continue;
    if (!Array.isArray(branches)) fail(ctx, path, `${junction} must be a list`, "fix the schema");
    branches.forEach((branch, i) => {
      checkChild(branch, branchPath(path, junction, i), {
        ...ctx,
        inJunction: true,
        outer: ctx.outer ?? node,
      });
    });
  }
  if (node.not !== undefined) {
    checkChild(node.not, branchPath(path, "not"), { ...ctx, inJunction: true, outer: ctx.outer ?? node });
  }
}

/** Inside a junction, descending into a field also descends into the node the junction constrains. */
function within(ctx: CheckContext, pick: (outer: Node) => unknown): CheckContext {
  if (!ctx.outer) return ctx;
  const outer = pick(ctx.outer);
  return { ...ctx, outer: isNode(outer) ? outer : {} };
}

function checkChild(child: unknown, path: string, ctx: CheckContext): void {
  if (!isNode(child)) fail(ctx, path, "a schema node must be an object", "fix the schema");
  checkNode(child, path, ctx);
}
