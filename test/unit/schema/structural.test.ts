import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import {
  assertStructural,
  crdFor,
  defineKind,
  immutable,
  SchemaError,
  toStructuralSchema,
  withRules,
} from "../../../src/schema/index.ts";

/** Asserts that converting `shape` as a spec fails with a SchemaError at `path` whose message matches. */
function rejects(shape: z.ZodType, path: string, message: RegExp): void {
  assert.throws(
    () => toStructuralSchema(shape, { kindName: "Widget", path: ".spec" }),
    (err: unknown) => {
      assert.ok(err instanceof SchemaError, String(err));
      assert.equal(err.code, "KL_SCHEMA");
      assert.equal(err.path, path);
      assert.match(err.message, message);
      assert.match(err.message, /^kind Widget, /);
      assert.match(err.message, /Fix: /);
      return true;
    },
  );
}

type Tree = { name: string; children: Tree[] };
const tree: z.ZodType<Tree> = z.object({
  name: z.string(),
  get children() {
    return z.array(tree);
  },
});

describe("structural rejections", () => {
  it("rejects recursive schemas", () => {
    rejects(z.object({ root: tree }), ".spec.root.children[*]", /recursive/);
  });

  it("rejects z.unknown() and z.any() unless opted in", () => {
    rejects(z.object({ a: z.unknown() }), ".spec.a", /no type.*preserveUnknown\(z\.unknown\(\)\)/s);
    rejects(z.object({ a: z.any() }), ".spec.a", /no type/);
  });

  it("rejects free-form records and loose objects unless opted in", () => {
    rejects(
      z.object({ a: z.record(z.string(), z.unknown()) }),
      ".spec.a",
      /free-form values.*preserveUnknown/s,
    );
    rejects(z.object({ a: z.looseObject({ b: z.string() }) }), ".spec.a", /free-form values/);
  });

  it("rejects unions of different shapes", () => {
    const union = z.union([z.object({ a: z.string() }), z.object({ b: z.int() })]);
    rejects(z.object({ u: union }), ".spec.u", /union of different shapes/);
    rejects(z.object({ u: z.union([z.number(), z.string()]) }), ".spec.u", /union of different shapes/);
  });

  it("rejects constraints inside int-or-string unions", () => {
    rejects(z.object({ p: z.union([z.int().min(1), z.string()]) }), ".spec.p", /int-or-string.*\(minimum\)/);
  });

  it("rejects additionalProperties next to properties", () => {
    rejects(
      z.object({ c: z.object({ a: z.string() }).catchall(z.string()) }),
      ".spec.c",
      /together with properties/,
    );
  });

  it("rejects tuples, dates, bigints and sets with the replacement to use", () => {
    rejects(z.object({ t: z.tuple([z.string(), z.int()]) }), ".spec.t", /tuples/);
    rejects(z.object({ d: z.date() }), ".spec.d", /z\.date\(\).*z\.iso\.datetime\(\)/s);
    rejects(z.object({ b: z.bigint() }), ".spec.b", /z\.int\(\)/);
    rejects(z.object({ s: z.set(z.string()) }), ".spec.s", /list-type/);
  });

  it("rejects forbidden keywords written into .meta()", () => {
    rejects(
      z.object({ a: z.array(z.string()).meta({ uniqueItems: true }) }),
      ".spec.a",
      /uniqueItems is forbidden/,
    );
    rejects(
      z.object({ a: z.object({}).meta({ dependencies: {} }) }),
      ".spec.a",
      /dependencies are not supported/,
    );
    rejects(z.object({ a: z.object({}).meta({ patternProperties: {} }) }), ".spec.a", /patternProperties/);
    rejects(z.object({ a: z.string().meta({ foo: 1 }) }), ".spec.a", /"foo" is not a CRD schema keyword/);
  });

  it("rejects patterns RE2 cannot compile", () => {
    rejects(z.object({ a: z.string().regex(/^(?=a)b/) }), ".spec.a", /lookahead/);
    rejects(z.object({ a: z.string().regex(/(a)\1/) }), ".spec.a", /backreference/);
    rejects(z.object({ a: z.iso.duration() }), ".spec.a", /lookahead/);
  });

  it("rejects malformed CEL rules", () => {
    rejects(withRules(z.object({ a: z.int() }), { rule: " " }), ".spec", /no rule expression/);
    rejects(
      withRules(z.object({ a: z.int() }), { rule: "true", message: "a\nb" }),
      ".spec",
      /multi-line message/,
    );
    rejects(
      withRules(z.object({ a: z.int() }), { rule: "true", fieldPath: ".b" }),
      ".spec",
      /fieldPath ".b"/,
    );
  });

  it("rejects transition rules below lists that are not maps", () => {
    const items = z.array(z.object({ name: immutable(z.string()) }));
    rejects(z.object({ items }), ".spec.items[*].name", /transition .*not a map/s);
  });

  it("rejects list-map keys that are not required scalar item fields", () => {
    const list = z.array(z.object({ name: z.string().optional() })).meta({
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["name"],
    });
    rejects(z.object({ list }), ".spec.list", /key "name" must be required/);
  });

  it("rejects a status schema that declares conditions, naming the path", () => {
    const kind = defineKind({
      group: "example.com",
      version: "v1",
      kind: "Widget",
      scope: "Namespaced",
      spec: z.object({}),
      status: z.object({ conditions: z.array(z.string()) }),
    });
    assert.throws(
      () => crdFor(kind),
      (err: unknown) => err instanceof SchemaError && err.path === ".status.conditions",
    );
  });

  it("rejects a spec that is not an object", () => {
    const kind = defineKind({
      group: "example.com",
      version: "v1",
      kind: "Widget",
      scope: "Cluster",
      spec: z.string(),
    });
    assert.throws(() => crdFor(kind), /\.spec: the schema is of type string/);
  });
});

describe("assertStructural on hand-written schemas", () => {
  const fails = (schema: Record<string, unknown>, path: string, message: RegExp) =>
    assert.throws(
      () => assertStructural(schema, "Widget"),
      (err: unknown) => err instanceof SchemaError && err.path === path && message.test(err.message),
    );

  it("requires a type on every node", () => {
    fails({ type: "object", properties: { a: { description: "x" } } }, ".a", /has no type/);
  });

  it("forbids type, description and defaults inside junctions", () => {
    const schema = { type: "object", properties: { a: { type: "string" } }, anyOf: [{ type: "object" }] };
    fails(schema, "<anyOf[0]>", /type inside allOf\/anyOf\/oneOf\/not/);
  });

  it("forbids junctions constraining undeclared fields", () => {
    const schema = {
      type: "object",
      properties: { a: { type: "string" } },
      oneOf: [{ required: ["a"] }, { properties: { b: {} } }],
    };
    fails(schema, "<oneOf[1]>", /field "b" is constrained inside a junction/);
  });

  it("forbids $ref and additionalProperties: false", () => {
    fails({ type: "object", properties: { a: { $ref: "#/definitions/A" } } }, ".a", /\$ref/);
    fails({ type: "object", additionalProperties: false }, "", /additionalProperties: false/);
  });

  it("forbids a type next to x-kubernetes-int-or-string", () => {
    fails(
      { type: "object", properties: { p: { type: "string", "x-kubernetes-int-or-string": true } } },
      ".p",
      /must not also declare a type/,
    );
  });

  it("accepts the canonical structural shapes", () => {
    assert.doesNotThrow(() =>
      assertStructural(
        {
          type: "object",
          properties: {
            a: { type: "string", allOf: [{ pattern: "^a" }, { pattern: "b$" }] },
            p: { "x-kubernetes-int-or-string": true },
            u: { "x-kubernetes-preserve-unknown-fields": true },
            l: { type: "array", items: { type: "string" }, "x-kubernetes-list-type": "set" },
          },
          anyOf: [{ required: ["a"] }, { required: ["p"] }],
        },
        "Widget",
      ),
    );
  });
});
