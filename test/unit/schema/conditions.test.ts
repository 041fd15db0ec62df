import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import {
  AGE_COLUMN,
  conditionSchema,
  crdFor,
  defineKind,
  type JSONSchemaProps,
  KindDefinitionError,
} from "../../../src/schema/index.ts";
import { Widget } from "./fixtures.ts";

const status = crdFor(Widget).spec.versions[0]?.schema.openAPIV3Schema.properties?.status as JSONSchemaProps;
const conditions = status.properties?.conditions as JSONSchemaProps;

/** The validation controller-gen emits for metav1.Condition (descriptions checked separately). */
const expectedValidation = {
  type: "object",
  required: ["lastTransitionTime", "message", "reason", "status", "type"],
  properties: {
    lastTransitionTime: { type: "string", format: "date-time" },
    message: { type: "string", maxLength: 32768 },
    observedGeneration: { type: "integer", format: "int64", minimum: 0 },
    reason: {
      type: "string",
      minLength: 1,
      maxLength: 1024,
      pattern: "^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$",
    },
    status: { type: "string", enum: ["True", "False", "Unknown"] },
    type: {
      type: "string",
      maxLength: 316,
      pattern:
        "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$",
    },
  },
};

function withoutDescriptions(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutDescriptions);
  if (typeof node !== "object" || node === null) return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key]) => key !== "description")
      .map(([key, value]) => [key, withoutDescriptions(value)]),
  );
}

describe("status.conditions", () => {
  it("is a list map keyed by type", () => {
    assert.equal(conditions.type, "array");
    assert.equal(conditions["x-kubernetes-list-type"], "map");
    assert.deepEqual(conditions["x-kubernetes-list-map-keys"], ["type"]);
  });

  it("has exactly controller-gen's metav1.Condition validation", () => {
    assert.deepEqual(withoutDescriptions(conditions.items), expectedValidation);
    assert.deepEqual(conditions.items, conditionSchema());
  });

  it("carries controller-gen's field descriptions", () => {
    const properties = conditionSchema().properties ?? {};
    assert.equal(properties.status?.description, "status of the condition, one of True, False, Unknown.");
    assert.equal(
      properties.type?.description,
      "type of condition in CamelCase or in foo.example.com/CamelCase.",
    );
    assert.match(properties.reason?.description ?? "", /^reason contains a programmatic identifier/);
  });

  it("is accompanied by status.observedGeneration (int64)", () => {
    assert.deepEqual(withoutDescriptions(status.properties?.observedGeneration), {
      type: "integer",
      format: "int64",
    });
  });
});

describe("printer columns", () => {
  const columns = crdFor(Widget).spec.versions[0]?.additionalPrinterColumns ?? [];

  it("shows the summary condition, its reason, the custom columns, then Age", () => {
    assert.deepEqual(
      columns.map((column) => column.name),
      ["Ready", "Reason", "Replicas", "Mode", "Age"],
    );
    assert.deepEqual(columns[0], {
      name: "Ready",
      type: "string",
      jsonPath: '.status.conditions[?(@.type=="Ready")].status',
    });
    assert.deepEqual(columns[1], {
      name: "Reason",
      type: "string",
      jsonPath: '.status.conditions[?(@.type=="Ready")].reason',
    });
    assert.deepEqual(columns[4], { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" });
    assert.equal(columns[3]?.priority, 1);
  });

  it("names the summary column after the summary condition", () => {
    const job = defineKind({
      group: "example.com",
      version: "v1",
      kind: "Run",
      scope: "Namespaced",
      spec: z.object({}),
      conditions: { summary: "Succeeded", types: ["Succeeded"] },
    });
    const names = crdFor(job).spec.versions[0]?.additionalPrinterColumns?.map((column) => column.jsonPath);
    assert.deepEqual(names, [
      '.status.conditions[?(@.type=="Succeeded")].status',
      '.status.conditions[?(@.type=="Succeeded")].reason',
      ".metadata.creationTimestamp",
    ]);
  });

  it("puts Age where the kind lists it (AGE_COLUMN), and only once", () => {
    const placed = defineKind({
      group: "example.com",
      version: "v1",
      kind: "Placed",
      scope: "Namespaced",
      spec: z.object({}),
      printerColumns: [{ name: "First", type: "string", jsonPath: ".spec.first" }, AGE_COLUMN],
    });
    assert.deepEqual(
      placed.printerColumns.map((column) => column.name),
      ["First", "Age"],
    );
    const crdColumns = crdFor(placed).spec.versions[0]?.additionalPrinterColumns ?? [];
    assert.deepEqual(
      crdColumns.map((column) => column.name),
      ["First", "Age"],
    );
  });

  it("has only Age without conditions or custom columns", () => {
    const plain = defineKind({
      group: "example.com",
      version: "v1",
      kind: "Plain",
      scope: "Cluster",
      spec: z.object({}),
    });
    assert.deepEqual(
      plain.printerColumns.map((column) => column.name),
      ["Age"],
    );
  });

  it("rejects a JSONPath without a leading dot and duplicate names", () => {
    const define = (printerColumns: { name: string; type: "string"; jsonPath: string }[]) =>
      defineKind({
        group: "example.com",
        version: "v1",
        kind: "Plain",
        scope: "Cluster",
        spec: z.object({}),
        conditions: { summary: "Ready", types: ["Ready"] },
        printerColumns,
      });
    assert.throws(() => define([{ name: "X", type: "string", jsonPath: "spec.x" }]), KindDefinitionError);
    assert.throws(
      () => define([{ name: "Ready", type: "string", jsonPath: ".spec.x" }]),
      /"Ready" appears twice/,
    );
  });
});
