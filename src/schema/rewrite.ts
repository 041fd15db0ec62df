/**
 * Step two of CRD schema generation: rewrites zod's OpenAPI output into the structural dialect
 * the apiserver accepts. References are inlined (recursion is rejected), the ±2^53 bounds zod adds
 * to integers go, int-or-string unions collapse to `x-kubernetes-int-or-string`, unions of literals
 * become one enum, `const` becomes a one-value enum, `additionalProperties: false` goes, and
 * free-form values are allowed only where the user opted in with `preserveUnknown()`.
 */
import { SchemaError } from "./errors.ts";
import { PRESERVE_UNKNOWN } from "./markers.ts";
import { branchPath, isNode, itemsPath, type Node, propPath, valuesPath } from "./node.ts";

interface RewriteContext {
  readonly kindName: string;
  readonly definitions: Readonly<Record<string, Node>>;
  /** Definitions being inlined above the current node, to detect recursion. */
  readonly resolving: readonly string[];
}

/** zod-only keys with no meaning in a CRD schema. */
const dropped = [
  "readOnly",
  "writeOnly",
  "contentEncoding",
  "contentMediaType",
  "deprecated",
  "$schema",
  "id",
];
/** Bounds zod adds for "any integer" / "any number"; not constraints the user asked for. */
const implicitBounds = new Set([
  Number.MAX_SAFE_INTEGER,
  -Number.MAX_SAFE_INTEGER,
  2 ** 53,
  -(2 ** 53),
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
]);
/** Keys that describe a node without constraining its type. */
const annotationKeys = new Set([
  "description",
  "title",
  "default",
  "example",
  "nullable",
  "x-kubernetes-validations",
]);

/** Rewrites a zod-generated schema (with its `definitions`) rooted at object path `base`. */
export function rewriteSchema(root: Node, kindName: string, base: string): Node {
  const { definitions, ...rest } = root;
  const ctx: RewriteContext = {
    kindName,
    definitions: isNode(definitions) ? (definitions as Record<string, Node>) : {},
    resolving: [],
  };
  return rewriteNode(rest, base, ctx);
}

function rewriteNode(input: Node, path: string, outer: RewriteContext): Node {
  const { node, ctx } = inlineReferences(input, path, outer);
  const local = collapseUnions(requireOptIn(cleanKeys(node), path, ctx.kindName), path, ctx.kindName);
  return rewriteChildren(local, path, ctx);
}

function rewriteChildren(node: Node, path: string, ctx: RewriteContext): Node {
  const out: Node = { ...node };
  if (isNode(node.properties)) {
    out.properties = Object.fromEntries(
      Object.entries(node.properties).map(([key, child]) => [
        key,
        rewriteNode(child as Node, propPath(path, key), ctx),
      ]),
    );
  }
  if (isNode(node.items)) out.items = rewriteNode(node.items, itemsPath(path), ctx);
  if (isNode(node.additionalProperties)) {
    out.additionalProperties = rewriteNode(node.additionalProperties, valuesPath(path), ctx);
  }
  for (const junction of ["allOf", "anyOf", "oneOf"] as const) {
    const branches = node[junction];
    if (Array.isArray(branches)) {
      out[junction] = branches.map((branch: Node, i) =>
        rewriteBranch(branch, branchPath(path, junction, i), ctx),
      );
    }
  }
  if (isNode(node.not)) out.not = rewriteBranch(node.not, branchPath(path, "not"), ctx);
  return out;
}

/** Branches of junctions constrain values only: typeless nodes there are fine. */
function rewriteBranch(input: Node, path: string, outer: RewriteContext): Node {
  const { node, ctx } = inlineReferences(input, path, outer);
  return rewriteChildren(cleanKeys(node), path, ctx);
}

/**
 * Replaces `$ref` (and zod's `allOf: [{ $ref }]` wrapper for annotated references) by the
 * referenced definition, and extends the recursion guard for the subtree.
 */
function inlineReferences(
  input: Node,
  path: string,
  ctx: RewriteContext,
): { node: Node; ctx: RewriteContext } {
  let node = input;
  let resolving = ctx.resolving;
  for (;;) {
    const single =
      Array.isArray(node.allOf) && node.allOf.length === 1 && isNode(node.allOf[0])
        ? node.allOf[0]
        : undefined;
    const refHolder =
      typeof node.$ref === "string" ? node : single && typeof single.$ref === "string" ? single : undefined;
    if (!refHolder) return { node, ctx: { ...ctx, resolving } };
    const name = definitionName(refHolder.$ref as string, path, ctx);
    if (resolving.includes(name)) throw recursionError(name, path, ctx.kindName);
    const { $ref: _ref, ...holderRest } = refHolder;
    const { $ref: _ownRef, allOf: _allOf, ...own } = node;
    const keptAllOf = refHolder === node && node.allOf !== undefined ? { allOf: node.allOf } : {};
    node = {
      ...(ctx.definitions[name] as Node),
      ...(refHolder === node ? {} : holderRest),
      ...keptAllOf,
      ...own,
    };
    resolving = [...resolving, name];
  }
}

function definitionName(ref: string, path: string, ctx: RewriteContext): string {
  const name = ref.replace(/^#\/(definitions|\$defs)\//, "");
  if (!(name in ctx.definitions)) {
    throw new SchemaError(
      ctx.kindName,
      path,
      `unresolvable reference ${ref}`,
      "inline the schema instead of referencing it",
    );
  }
  return name;
}

function recursionError(name: string, path: string, kindName: string): SchemaError {
  return new SchemaError(
    kindName,
    path,
    `the schema is recursive (${name.startsWith("__schema") ? "a schema" : `"${name}"`} contains itself), and CRD schemas cannot be`,
    "declare a fixed number of levels explicitly, or mark the recursive field preserveUnknown() and check it with parseSpec",
  );
}

/** Drops zod-only keys and implicit bounds; `const` → one-value enum; `examples` → `example`. */
function cleanKeys(input: Node): Node {
  const node: Node = { ...input };
  for (const key of dropped) delete node[key];
  if ("const" in node) {
    node.enum = [node.const];
    delete node.const;
  }
  if (Array.isArray(node.examples)) {
    if (node.examples.length > 0 && node.example === undefined) node.example = node.examples[0];
    delete node.examples;
  }
  for (const key of ["minimum", "maximum"]) {
    if (typeof node[key] === "number" && implicitBounds.has(node[key])) delete node[key];
  }
  if (node.additionalProperties === false) delete node.additionalProperties;
  return node;
}

/** Free-form values (`{}`, `additionalProperties: {}`) need `preserveUnknown()`; errors otherwise. */
function requireOptIn(node: Node, path: string, kindName: string): Node {
  const freeFormMap = node.additionalProperties === true || isEmptySchema(node.additionalProperties);
  if (node[PRESERVE_UNKNOWN] === true) {
    if (freeFormMap) delete node.additionalProperties;
    return node;
  }
  if (freeFormMap) {
    throw new SchemaError(
      kindName,
      path,
      "a map or object with free-form values (z.record(z.string(), z.unknown()), z.looseObject, a catchall) is pruned by the apiserver unless marked",
      "wrap it in preserveUnknown(...) to keep unknown fields, or give the values a type",
    );
  }
  if (Object.keys(node).every((key) => annotationKeys.has(key))) {
    throw new SchemaError(
      kindName,
      path,
      "the field has no type (z.unknown() or z.any()), which a structural schema does not allow",
      "give it a type, or opt in with preserveUnknown(z.unknown()) to accept any JSON value",
    );
  }
  return node;
}

function isEmptySchema(value: unknown): boolean {
  return isNode(value) && Object.keys(value).every((key) => key === "description");
}

/** int-or-string unions → `x-kubernetes-int-or-string`; unions of literals → one enum. */
function collapseUnions(node: Node, path: string, kindName: string): Node {
  for (const junction of ["anyOf", "oneOf"] as const) {
    const branches = node[junction];
    if (!Array.isArray(branches) || !branches.every(isNode)) continue;
    const cleaned = branches.map(cleanKeys);
    const { [junction]: _branches, ...rest } = node;
    if (isIntOrString(cleaned, path, kindName)) return { ...rest, "x-kubernetes-int-or-string": true };
    const literals = literalUnion(cleaned);
    if (literals) return { ...rest, ...literals };
  }
  return dropRedundantBranchTypes(node);
}

function isIntOrString(branches: Node[], path: string, kindName: string): boolean {
  const types = branches.map((branch) => branch.type).sort();
  if (branches.length !== 2 || types[0] !== "integer" || types[1] !== "string") return false;
  const constrained = branches.flatMap((branch) =>
    Object.keys(branch).filter((key) => key !== "type" && !isInt32Bound(key, branch[key])),
  );
  if (constrained.length > 0) {
    throw new SchemaError(
      kindName,
      path,
      `an int-or-string union cannot carry constraints on its members (${constrained.join(", ")})`,
      "drop them and add a CEL rule instead, e.g. withRules(field, { rule: \"type(self) == int ? self > 0 : self.endsWith('%')\" })",
    );
  }
  return true;
}

/** The bounds of `z.int32()`, which match Kubernetes' own IntOrString and need no rule. */
function isInt32Bound(key: string, value: unknown): boolean {
  return (key === "minimum" && value === -(2 ** 31)) || (key === "maximum" && value === 2 ** 31 - 1);
}

function literalUnion(branches: Node[]): Node | undefined {
  const type = branches[0]?.type;
  const pure = branches.every(
    (branch) => branch.type === type && Array.isArray(branch.enum) && Object.keys(branch).length === 2,
  );
  if (!pure || type === undefined) return undefined;
  return { type, enum: [...new Set(branches.flatMap((branch) => branch.enum as unknown[]))] };
}

/** zod repeats `type: string` inside `allOf` for stacked patterns; structural schemas forbid it. */
function dropRedundantBranchTypes(node: Node): Node {
  if (!Array.isArray(node.allOf) || node.type === undefined) return node;
  const allOf = node.allOf.map((branch: Node) => {
    if (!isNode(branch) || branch.type !== node.type) return branch;
    const { type: _type, ...rest } = branch;
    return rest;
  });
  return { ...node, allOf };
}
