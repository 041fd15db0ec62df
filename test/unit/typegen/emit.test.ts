import assert from "node:assert/strict";
import { test } from "node:test";
import { docComment } from "../../../src/typegen/doc.ts";
import { interfaceDeclaration, type TypeScope, typeExpression } from "../../../src/typegen/emit.ts";
import { ModuleBuilder } from "../../../src/typegen/module.ts";
import type { Schema } from "../../../src/typegen/schema.ts";

/** A scope resolving `#/components/schemas/a.b.Name` to `Name`, recording what it declares. */
function scope(): TypeScope & { declared: string[] } {
  const declared: string[] = [];
  return {
    declared,
    refName: (ref) => ref.slice(ref.lastIndexOf(".") + 1),
    declareObject: (name) => {
      declared.push(name);
      return name;
    },
  };
}

test("scalars, enums, nullable, int-or-string and unions of typed branches", () => {
  const s = scope();
  assert.equal(typeExpression({ type: "string" }, s, "X"), "string");
  assert.equal(typeExpression({ type: "integer", format: "int32" }, s, "X"), "number");
  assert.equal(typeExpression({ type: "string", enum: ["Always", "Never"] }, s, "X"), '"Always" | "Never"');
  assert.equal(typeExpression({ type: "string", nullable: true }, s, "X"), "string | null");
  assert.equal(
    typeExpression(
      { "x-kubernetes-int-or-string": true, anyOf: [{ type: "integer" }, { type: "string" }] },
      s,
      "X",
    ),
    "number | string",
  );
  assert.equal(
    typeExpression({ format: "int-or-string", oneOf: [{ type: "integer" }] }, s, "X"),
    "number | string",
  );
  assert.equal(
    typeExpression({ oneOf: [{ type: "string" }, { type: "number" }] }, s, "X"),
    "string | number",
  );
  assert.equal(typeExpression({}, s, "X"), "unknown");
});

test("arrays and maps, with parentheses where a union needs them", () => {
  const s = scope();
  assert.equal(typeExpression({ type: "array", items: { type: "string" } }, s, "X"), "string[]");
  assert.equal(
    typeExpression({ type: "array", items: { type: "string", enum: ["a", "b"] } }, s, "X"),
    '("a" | "b")[]',
  );
  assert.equal(
    typeExpression(
      { type: "object", additionalProperties: { type: "array", items: { type: "string" } } },
      s,
      "X",
    ),
    "Record<string, string[]>",
  );
  assert.equal(
    typeExpression(
      { type: "array", items: { type: "object", additionalProperties: { type: "string" } } },
      s,
      "X",
    ),
    "Record<string, string>[]",
  );
  assert.equal(
    typeExpression({ type: "object", "x-kubernetes-preserve-unknown-fields": true }, s, "X"),
    "Record<string, unknown>",
  );
});

test("$ref, allOf wrapping a $ref (defaults and descriptions sit beside it), and nested objects", () => {
  const s = scope();
  assert.equal(
    typeExpression({ $ref: "#/components/schemas/io.k8s.api.core.v1.PodSpec" }, s, "X"),
    "PodSpec",
  );
  const wrapped: Schema = {
    description: "Standard object's metadata.",
    default: {},
    allOf: [{ $ref: "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" }],
  };
  assert.equal(typeExpression(wrapped, s, "X"), "ObjectMeta");
  assert.equal(
    typeExpression({ type: "object", properties: { a: { type: "string" } } }, s, "WidgetSpec"),
    "WidgetSpec",
  );
  assert.deepEqual(s.declared, ["WidgetSpec"]);
});

test("an interface: required and optional members, quoted keys, preserved unknown fields, nested names", () => {
  const module = new ModuleBuilder();
  const schema: Schema = {
    description: "A widget.",
    type: "object",
    required: ["name"],
    "x-kubernetes-preserve-unknown-fields": true,
    properties: {
      name: { type: "string", description: "Its name." },
      "x-size": { type: "integer" },
      ports: {
        type: "array",
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["port", "protocol"],
        items: { type: "object", properties: { port: { type: "integer" } } },
      },
    },
  };
  assert.equal(
    interfaceDeclaration("Widget", schema, module),
    [
      "/**",
      " * A widget.",
      " *",
      " * Unknown fields are preserved.",
      " */",
      "export interface Widget {",
      "  /**",
      "   * Its name.",
      "   */",
      "  name: string;",
      '  "x-size"?: number;',
      "  /**",
      "   * List type: `map`, keyed by `port`, `protocol`.",
      "   */",
      "  ports?: WidgetPorts[];",
      "  [field: string]: unknown;",
      "}",
      "",
    ].join("\n"),
  );
  assert.match(module.render("A module."), /export interface WidgetPorts \{\n {2}port\?: number;\n\}/);
});

test("doc comments: a */ inside a description cannot end the comment; defaults are shown", () => {
  const doc = docComment({
    description: "Matches a/*/b globs */ like this.  \nSecond line.",
    default: "IfNotPresent",
  });
  assert.equal(
    doc,
    [
      "/**",
      " * Matches a/*\\/b globs *\\/ like this.",
      " * Second line.",
      " *",
      ' * @defaultValue `"IfNotPresent"`',
      " */",
      "",
    ].join("\n"),
  );
  assert.equal(docComment({ default: {} }), "");
});
