/** The RFC 6902 patch a defaulting webhook answers: applied to the original, it gives the defaulted object. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  escapePointerToken,
  type Json,
  jsonPatch,
  type PatchOperation,
} from "../../../src/webhook/internal/json-patch.ts";

/** An RFC 6902 applier for add/remove/replace (what jsonPatch emits), with RFC 6901 unescaping. */
function apply(doc: Json, ops: PatchOperation[]): Json {
  let root = structuredClone(doc);
  for (const op of ops) {
    if (op.path === "") {
      assert.equal(op.op, "replace");
      root = structuredClone((op as { value: Json }).value);
      continue;
    }
    const tokens = op.path
      .slice(1)
      .split("/")
      .map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"));
    const last = tokens.pop() as string;
    const parent = tokens.reduce((at, t) => (at as Record<string, Json>)[t] as Json, root) as Record<
      string,
      Json
    >;
    if (op.op === "remove") {
      assert.ok(last in parent, `remove of a missing member ${op.path}`);
      delete parent[last];
    } else {
      assert.equal(last in parent, op.op === "replace", `${op.op} ${op.path}`);
      parent[last] = structuredClone(op.value);
    }
  }
  return root;
}

const cases: [string, Json, Json][] = [
  ["a value changed", { spec: { replicas: 1 } }, { spec: { replicas: 3 } }],
  ["a member added deep down", { spec: {} }, { spec: { template: { labels: { app: "x" } } } }],
  ["a member removed", { spec: { a: 1, b: 2 } }, { spec: { a: 1 } }],
  [
    "keys with ~ and /",
    { metadata: { labels: {} } },
    { metadata: { labels: { "example.com/tier": "a~b" } } },
  ],
  ["an escaped key changed", { m: { "a/b": 1, "c~d": 2 } }, { m: { "a/b": 2 } }],
  ["an array changed", { spec: { ports: [80, 443] } }, { spec: { ports: [80, 8443, 9000] } }],
  ["an object becomes an array", { spec: { x: { a: 1 } } }, { spec: { x: [1] } }],
  ["null and false values", { a: null, b: true }, { a: false, b: null, c: null }],
  ["the root is not an object", [1, 2], { a: 1 }],
];

describe("jsonPatch", () => {
  for (const [name, from, to] of cases) {
    it(`turns one value into the other: ${name}`, () => {
      assert.deepEqual(apply(from, jsonPatch(from, to)), to);
    });
  }

  it("is empty for equal values, whatever the key order", () => {
    assert.deepEqual(jsonPatch({ a: 1, b: { c: [1, { d: 2 }] } }, { b: { c: [1, { d: 2 }] }, a: 1 }), []);
  });

  it("names members with escaped pointers and replaces arrays whole", () => {
    assert.deepEqual(jsonPatch({ m: { "a/b": 1, l: [1] } }, { m: { "a/b": 2, "x~y": true, l: [1, 2] } }), [
      { op: "replace", path: "/m/a~1b", value: 2 },
      { op: "add", path: "/m/x~0y", value: true },
      { op: "replace", path: "/m/l", value: [1, 2] },
    ]);
  });

  it("escapes ~ before / so that ~1 in a key stays itself", () => {
    assert.equal(escapePointerToken("a~1/b"), "a~01~1b");
  });
});
