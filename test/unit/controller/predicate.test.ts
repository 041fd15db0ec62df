import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject, ObjectMeta } from "../../../src/api/index.ts";
import {
  and,
  annotationsChanged,
  generationChanged,
  labelsChanged,
  lifecycleChanged,
  not,
  or,
  type Predicate,
  passes,
  predicate,
} from "../../../src/controller/index.ts";

function obj(metadata: ObjectMeta = {}): KubeObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", namespace: "ns", ...metadata } };
}

const update = (p: Predicate, old: ObjectMeta, now: ObjectMeta) => passes([p], "update", obj(now), obj(old));

describe("built-in predicates", () => {
  it("generationChanged passes updates whose generation moved", () => {
    assert.equal(update(generationChanged, { generation: 1 }, { generation: 2 }), true);
    assert.equal(update(generationChanged, { generation: 1, labels: { a: "1" } }, { generation: 1 }), false);
    assert.equal(update(generationChanged, {}, {}), false);
  });

  it("labelsChanged compares label maps, not their order or identity", () => {
    assert.equal(
      update(labelsChanged, { labels: { a: "1", b: "2" } }, { labels: { b: "2", a: "1" } }),
      false,
    );
    assert.equal(update(labelsChanged, { labels: { a: "1" } }, { labels: { a: "2" } }), true);
    assert.equal(update(labelsChanged, { labels: { a: "1" } }, { labels: { a: "1", b: "2" } }), true);
    assert.equal(update(labelsChanged, { labels: { a: "1" } }, {}), true);
    assert.equal(update(labelsChanged, {}, { labels: {} }), false, "absent and empty are the same");
  });

  it("annotationsChanged compares annotation maps", () => {
    assert.equal(update(annotationsChanged, { annotations: { a: "1" } }, { annotations: { a: "1" } }), false);
    assert.equal(update(annotationsChanged, { annotations: { a: "1" } }, { annotations: { b: "1" } }), true);
    assert.equal(update(annotationsChanged, { labels: { x: "1" } }, {}), false);
  });

  it("lifecycleChanged passes the start of deletion and finalizer changes", () => {
    assert.equal(update(lifecycleChanged, {}, { deletionTimestamp: "2024-01-01T00:00:00Z" }), true);
    assert.equal(update(lifecycleChanged, { finalizers: ["a"] }, { finalizers: ["a", "b"] }), true);
    assert.equal(update(lifecycleChanged, { finalizers: ["a"] }, {}), true);
    assert.equal(
      update(lifecycleChanged, { finalizers: ["a"], generation: 1 }, { finalizers: ["a"], generation: 2 }),
      false,
    );
  });

  it("let creates and deletes through", () => {
    for (const p of [generationChanged, labelsChanged, annotationsChanged, lifecycleChanged]) {
      assert.equal(passes([p], "create", obj()), true);
      assert.equal(passes([p], "delete", obj()), true);
    }
  });
});

const named = (name: string): Predicate => predicate((o) => o.metadata.name === name);
const never: Predicate = { create: () => false, update: () => false, delete: () => false };

describe("predicate combinators", () => {
  it("predicate applies one test to the new object of every event", () => {
    const p = named("a");
    assert.equal(passes([p], "create", obj()), true);
    assert.equal(passes([p], "delete", obj({ name: "b" })), false);
    assert.equal(passes([p], "update", obj({ name: "a" }), obj({ name: "b" })), true);
    assert.equal(passes([p], "update", obj({ name: "b" }), obj({ name: "a" })), false);
  });

  it("and passes when every predicate passes; missing methods pass", () => {
    const both = and(named("a"), generationChanged);
    assert.equal(passes([both], "create", obj()), true, "generationChanged has no create");
    assert.equal(passes([both], "update", obj({ generation: 2 }), obj({ generation: 1 })), true);
    assert.equal(passes([both], "update", obj({ generation: 1 }), obj({ generation: 1 })), false);
    assert.equal(passes([and(named("a"), never)], "create", obj()), false);
    assert.equal(passes([and()], "delete", obj()), true);
  });

  it("or passes when any predicate passes", () => {
    const either = or(generationChanged, labelsChanged);
    assert.equal(passes([either], "update", obj({ labels: { a: "1" } }), obj()), true);
    assert.equal(passes([either], "update", obj({ generation: 2 }), obj({ generation: 1 })), true);
    assert.equal(passes([either], "update", obj(), obj()), false);
    assert.equal(passes([or(never, never)], "create", obj()), false);
    assert.equal(passes([or()], "create", obj()), false, "no alternative passes");
  });

  it("not inverts, turning a missing method into one that blocks", () => {
    assert.equal(
      passes([not(generationChanged)], "update", obj({ generation: 1 }), obj({ generation: 1 })),
      true,
    );
    assert.equal(
      passes([not(generationChanged)], "update", obj({ generation: 2 }), obj({ generation: 1 })),
      false,
    );
    assert.equal(passes([not(generationChanged)], "create", obj()), false);
    assert.equal(passes([not(never)], "delete", obj()), true);
  });

  it("passes requires every predicate of the list, and an empty list passes", () => {
    assert.equal(passes([named("a"), named("a")], "create", obj()), true);
    assert.equal(passes([named("a"), named("b")], "create", obj()), false);
    assert.equal(passes([], "delete", obj()), true);
  });

  it("passes hands old and new objects to update predicates in that order", () => {
    const seen: string[] = [];
    const spy: Predicate = {
      update: (old, now) => {
        seen.push(`${old.metadata.name}->${now.metadata.name}`);
        return true;
      },
    };
    passes([spy], "update", obj({ name: "new" }), obj({ name: "old" }));
    assert.deepEqual(seen, ["old->new"]);
  });
});
