import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { mergePatch, sameJson, toJson } from "../../../src/status/internal/json-diff.ts";

describe("status writer: JSON comparison", () => {
  it("serialises as the apiserver would: undefined and null members vanish, dates become strings", () => {
    const at = new Date("2026-11-22T04:25:53Z");
    assert.deepEqual(toJson({ a: undefined, b: null, c: [1, undefined, null], d: { e: null, at } }), {
      c: [1, null, null],
      d: { at: "2026-11-22T04:25:53.000Z" },
    });
    assert.equal(toJson(undefined), undefined);
  });

  it("gives what a JSON round trip gives, with null members dropped", () => {
    const roundTrip = (value: unknown) => {
      const drop = (v: unknown): unknown =>
        Array.isArray(v)
          ? v.map(drop)
          : v && typeof v === "object"
            ? Object.fromEntries(Object.entries(v).flatMap(([k, m]) => (m === null ? [] : [[k, drop(m)]])))
            : v;
      const text = JSON.stringify(value);
      return text === undefined ? undefined : drop(JSON.parse(text));
    };
    const values: unknown[] = [
      "s",
      0,
      -1.5,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      true,
      null,
      undefined,
      () => 1,
      Symbol("s"),
      [undefined, () => 1, Symbol("s"), Number.NaN, null, [null]],
      { a: { b: { c: [1, { d: undefined, e: null, f: "g" }] } }, h: () => 1, i: Symbol("i") },
      { toJSON: (key: string) => ({ key, nested: new Date(0) }) },
      { list: [{ toJSON: () => undefined }], only: { toJSON: () => undefined } },
      Object.assign(Object.create({ inherited: 1 }), { own: 2 }),
      { conditions: [{ type: "Ready", status: "True", lastTransitionTime: "2026-11-22T04:25:53Z" }] },
    ];
    for (const value of values)
      assert.deepEqual(toJson(value), roundTrip(value), String(JSON.stringify(value)));
    assert.throws(() => toJson({ n: 1n }), TypeError);
  });

  it("ignores key order but not array order", () => {
    assert.ok(sameJson(toJson({ a: 1, b: { c: 2, d: 3 } }), toJson({ b: { d: 3, c: 2 }, a: 1 })));
    assert.ok(!sameJson([1, 2], [2, 1]));
    assert.ok(!sameJson({ a: 1 }, { a: 1, b: 2 }));
    assert.ok(!sameJson({ a: [1] }, { a: { 0: 1 } }));
    assert.ok(!sameJson({ a: 1 }, { b: 1 }));
  });

  it("does not mistake inherited names for members", () => {
    assert.ok(!sameJson({ constructor: 1 }, { toString: 1 }));
    assert.deepEqual(mergePatch({}, { toString: "x" }), { toString: "x" });
  });
});

describe("status writer: merge patch", () => {
  it("is empty between equal objects", () => {
    assert.deepEqual(mergePatch({ a: 1, b: { c: [1] } }, { b: { c: [1] }, a: 1 }), {});
  });

  it("nulls dropped members at any depth and sends changed ones", () => {
    const before = { keep: 1, gone: "x", nested: { gone: true, keep: 2, changed: 1 } };
    const after = { keep: 1, nested: { keep: 2, changed: 2, added: [1] }, added: { x: 1 } };
    assert.deepEqual(mergePatch(before, after), {
      gone: null,
      nested: { gone: null, changed: 2, added: [1] },
      added: { x: 1 },
    });
  });

  it("replaces a member whose type changed, and arrays whole", () => {
    assert.deepEqual(mergePatch({ a: { b: 1 }, l: [1, 2] }, { a: "flat", l: [1] }), { a: "flat", l: [1] });
  });
});
