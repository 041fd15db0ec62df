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
    const parent = tokens.reduce((at, t) => member(at, t), root) as Record<string, Json>;
    // Own members only, as the apiserver's Go applier sees a JSON object: no prototype to inherit from.
    if (op.op === "remove") {
      assert.ok(Object.hasOwn(parent, last), `remove of a missing member ${op.path}`);
      delete parent[last];
    } else {
      assert.equal(Object.hasOwn(parent, last), op.op === "replace", `${op.op} ${op.path}`);
      Object.defineProperty(parent, last, {
        value: structuredClone(op.value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return root;
}

/** The own member `key` of `at` (never one inherited from Object.prototype). */
function member(at: Json, key: string): Json {
  assert.ok(typeof at === "object" && at !== null && Object.hasOwn(at, key), `no member ${key}`);
  return (at as Record<string, Json>)[key] as Json;
}

/** `text` parsed: JSON.parse makes `__proto__` an own member, as the apiserver sends it. */
const json = (text: string) => JSON.parse(text) as Json;

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
  // Keys named like Object.prototype's members are members like any other.
  ["a constructor member added", { spec: {} }, { spec: { constructor: "x" } }],
  ["a toString member removed", { spec: { toString: 1, a: 2 } }, { spec: { a: 2 } }],
  ["a hasOwnProperty member changed", { m: { hasOwnProperty: 1 } }, { m: { hasOwnProperty: 2 } }],
  ["a __proto__ member added", json('{"m":{}}'), json('{"m":{"__proto__":{"a":1}}}')],
  ["a __proto__ member removed", json('{"m":{"__proto__":{"a":1},"b":1}}'), json('{"m":{"b":1}}')],
  ["a __proto__ member changed", json('{"m":{"__proto__":{"a":1}}}'), json('{"m":{"__proto__":{"a":2}}}')],
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

  it("adds, not replaces, a member named like an Object.prototype member, and removes one", () => {
    assert.deepEqual(jsonPatch({ labels: {} }, { labels: { constructor: "a", valueOf: "b" } }), [
      { op: "add", path: "/labels/constructor", value: "a" },
      { op: "add", path: "/labels/valueOf", value: "b" },
    ]);
    assert.deepEqual(jsonPatch(json('{"l":{"__proto__":"a","toString":"b"}}'), { l: {} }), [
      { op: "remove", path: "/l/__proto__" },
      { op: "remove", path: "/l/toString" },
    ]);
  });

  it("sees objects that differ only in a member named like an Object.prototype member as different", () => {
    assert.deepEqual(jsonPatch({ a: {} }, { a: { constructor: {} } }), [
      { op: "add", path: "/a/constructor", value: {} },
    ]);
    assert.deepEqual(jsonPatch(json('{"a":{"x":1}}'), json('{"a":{"__proto__":1}}')), [
      { op: "remove", path: "/a/x" },
      { op: "add", path: "/a/__proto__", value: 1 },
    ]);
  });

  it("escapes ~ before / so that ~1 in a key stays itself", () => {
    assert.equal(escapePointerToken("a~1/b"), "a~01~1b");
  });
});
