import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { crdFor, crdYaml, defineKind, type JSONSchemaProps } from "../../../src/schema/index.ts";
import { assertGolden } from "../../golden.ts";
import { Widget } from "./fixtures.ts";

const crd = crdFor(Widget);
const version = crd.spec.versions[0];
const root = version?.schema.openAPIV3Schema as JSONSchemaProps;
const spec = root.properties?.spec as JSONSchemaProps;
const field = (name: string): JSONSchemaProps => spec.properties?.[name] as JSONSchemaProps;

describe("crdFor: object and names", () => {
  it("is an apiextensions/v1 CRD named plural.group", () => {
    assert.equal(crd.apiVersion, "apiextensions.k8s.io/v1");
    assert.equal(crd.kind, "CustomResourceDefinition");
    assert.equal(crd.metadata.name, "widgets.example.kubeloop.dev");
    assert.equal(crd.spec.scope, "Namespaced");
  });

  it("carries kind, listKind, plural, singular, shortNames and categories", () => {
    assert.deepEqual(crd.spec.names, {
      kind: "Widget",
      listKind: "WidgetList",
      plural: "widgets",
      singular: "widget",
      shortNames: ["wdg"],
      categories: ["kubeloop"],
    });
  });

  it("enables the status subresource when the kind has a status", () => {
    assert.deepEqual(version?.subresources, { status: {} });
  });

  it("declares apiVersion, kind, metadata, spec and status at the root, spec required", () => {
    assert.deepEqual(Object.keys(root.properties ?? {}), [
      "apiVersion",
      "kind",
      "metadata",
      "spec",
      "status",
    ]);
    assert.deepEqual(root.properties?.metadata, { type: "object" });
    assert.deepEqual(root.required, ["spec"]);
    assert.equal(root.type, "object");
  });
});

describe("crdFor: the structural spec schema", () => {
  it("keeps string length and pattern bounds and the description", () => {
    assert.deepEqual(field("image"), {
      description: "Container image to run.",
      maxLength: 255,
      minLength: 1,
      pattern: "^[a-z0-9./:@-]+$",
      type: "string",
    });
  });

  it("keeps integer bounds and defaults, leaving defaulted fields out of required", () => {
    assert.deepEqual(field("replicas"), { default: 1, maximum: 10, minimum: 0, type: "integer" });
    assert.deepEqual(spec.required, ["image", "mode", "owner"]);
  });

  it("turns enums and literals into enums", () => {
    assert.deepEqual(field("mode"), { enum: ["Active", "Standby"], type: "string" });
    assert.deepEqual(field("tier"), { default: "standard", enum: ["standard"], type: "string" });
  });

  it("describes nested objects with their own required fields", () => {
    assert.deepEqual(field("resources"), {
      properties: { cpu: { type: "string" }, memory: { type: "string" } },
      required: ["cpu"],
      type: "object",
    });
  });

  it("bounds arrays and marks list maps", () => {
    const ports = field("ports");
    assert.equal(ports.maxItems, 8);
    assert.equal(ports["x-kubernetes-list-type"], "map");
    assert.deepEqual(ports["x-kubernetes-list-map-keys"], ["name"]);
    assert.deepEqual(field("tags"), {
      items: { maxLength: 63, type: "string" },
      maxItems: 16,
      type: "array",
    });
  });

  it("collapses int-or-string unions to the extension", () => {
    assert.deepEqual(field("ports").items?.properties?.targetPort, {
      description: "Number or name of the target port.",
      "x-kubernetes-int-or-string": true,
    });
  });

  it("removes the ±2^53 bounds zod puts on plain integers", () => {
    const port = field("ports").items?.properties?.port;
    assert.deepEqual(port, { maximum: 65535, minimum: 1, type: "integer" });
    const plain = crdFor(defineKind({ ...kindBase, spec: z.object({ n: z.int() }) }));
    assert.deepEqual(specOf(plain).properties?.n, { type: "integer" });
  });

  it("keeps records as typed additionalProperties", () => {
    assert.deepEqual(field("labels"), { additionalProperties: { type: "string" }, type: "object" });
  });

  it("keeps date-time as a format without zod's regex", () => {
    assert.deepEqual(field("window").properties?.notBefore, { format: "date-time", type: "string" });
  });

  it("preserves unknown fields where the user opted in", () => {
    assert.deepEqual(field("values"), {
      description: "Free-form values passed to the workload.",
      type: "object",
      "x-kubernetes-preserve-unknown-fields": true,
    });
  });

  it("puts CEL rules at the root of spec and on nested fields", () => {
    assert.deepEqual(spec["x-kubernetes-validations"], [
      {
        rule: "self.mode != 'Standby' || self.replicas == 0",
        message: "standby widgets run no replicas",
        fieldPath: ".replicas",
      },
    ]);
    assert.equal(field("window")["x-kubernetes-validations"]?.[0]?.fieldPath, ".notBefore");
    assert.deepEqual(field("owner")["x-kubernetes-validations"], [
      { rule: "self == oldSelf", message: "owner is immutable" },
    ]);
  });

  it("limits metadata.name with a rule at the root when the kind says how long its names may be", () => {
    assert.equal(root["x-kubernetes-validations"], undefined, "no limit unless asked");
    const limited = defineKind({
      group: "example.kubeloop.dev",
      version: "v1",
      kind: "Gizmo",
      scope: "Namespaced",
      spec: z.object({ size: z.int() }),
      maxNameLength: 40,
    });
    const schema = crdFor(limited).spec.versions[0]?.schema.openAPIV3Schema as JSONSchemaProps;
    assert.deepEqual(schema["x-kubernetes-validations"], [
      {
        rule: "size(self.metadata.name) <= 40",
        message:
          "metadata.name must be at most 40 characters: the Gizmo controller names its children after it",
        reason: "FieldValueInvalid",
      },
    ]);
  });

  it("never emits additionalProperties: false, $ref or definitions", () => {
    const text = JSON.stringify(crd);
    for (const forbidden of ['"additionalProperties":false', '"$ref"', '"definitions"', "9007199254740991"]) {
      assert.ok(!text.includes(forbidden), forbidden);
    }
  });

  it("matches the golden YAML", () => {
    assertGolden(new URL("./golden/widget-crd.yaml", import.meta.url), crdYaml([Widget]));
  });
});

const kindBase = { group: "example.com", version: "v1", kind: "Thing", scope: "Cluster" } as const;
function specOf(object: ReturnType<typeof crdFor>): JSONSchemaProps {
  return object.spec.versions[0]?.schema.openAPIV3Schema.properties?.spec as JSONSchemaProps;
}

describe("crdFor: spec and status defaults", () => {
  it("defaults a spec without required fields to {} so nested defaults apply", () => {
    const thing = crdFor(defineKind({ ...kindBase, spec: z.object({ n: z.int().default(3) }) }));
    assert.deepEqual(specOf(thing).default, {});
    assert.equal(thing.spec.versions[0]?.schema.openAPIV3Schema.required, undefined);
  });

  it("has no status and no subresource without status schema or conditions", () => {
    const thing = crdFor(defineKind({ ...kindBase, spec: z.object({ a: z.string() }) }));
    assert.equal(thing.spec.versions[0]?.subresources, undefined);
    assert.equal(thing.spec.versions[0]?.schema.openAPIV3Schema.properties?.status, undefined);
    assert.deepEqual(thing.spec.names.shortNames, undefined);
  });

  it("adds a status with conditions and the subresource when only conditions are given", () => {
    const thing = crdFor(
      defineKind({
        ...kindBase,
        spec: z.object({}),
        conditions: { summary: "Succeeded", types: ["Succeeded"] },
      }),
    );
    const status = thing.spec.versions[0]?.schema.openAPIV3Schema.properties?.status;
    assert.deepEqual(Object.keys(status?.properties ?? {}), ["conditions", "observedGeneration"]);
    assert.deepEqual(thing.spec.versions[0]?.subresources, { status: {} });
  });

  it("merges the user's status fields before conditions and observedGeneration", () => {
    const status = root.properties?.status as JSONSchemaProps;
    assert.deepEqual(Object.keys(status.properties ?? {}), [
      "readyReplicas",
      "endpoint",
      "conditions",
      "observedGeneration",
    ]);
    assert.deepEqual(status.properties?.observedGeneration?.format, "int64");
    assert.equal(status.properties?.observedGeneration?.type, "integer");
  });

  it("emits one YAML document per kind", () => {
    const other = defineKind({ ...kindBase, spec: z.object({}) });
    const text = crdYaml([Widget, other]);
    assert.equal(text.split(/^---$/m).length, 2);
    assert.match(text, /name: things\.example\.com/);
  });
});
