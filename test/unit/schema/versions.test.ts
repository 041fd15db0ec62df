import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { crdFor, defineKind, type JSONSchemaProps, KindDefinitionError } from "../../../src/schema/index.ts";

const base = {
  group: "example.com",
  version: "v1",
  kind: "Gadget",
  scope: "Namespaced",
  spec: z.object({ size: z.int().min(1) }),
  conditions: { summary: "Ready", types: ["Ready"] },
} as const;

describe("versions", () => {
  it("makes the primary version the only served storage version by default", () => {
    const versions = crdFor(defineKind(base)).spec.versions;
    assert.deepEqual(
      versions.map(({ name, served, storage }) => ({ name, served, storage })),
      [{ name: "v1", served: true, storage: true }],
    );
  });

  it("lists further versions with their own schemas, columns and deprecation", () => {
    const kind = defineKind({
      ...base,
      versions: [
        {
          name: "v1alpha1",
          spec: z.object({ size: z.string() }),
          deprecated: true,
          deprecationWarning: "example.com/v1alpha1 Gadget is deprecated; use v1",
          printerColumns: [{ name: "Size", type: "string", jsonPath: ".spec.size" }],
        },
        { name: "v2", spec: z.object({ size: z.int(), color: z.string() }), served: false },
      ],
    });
    const [v1, v1alpha1, v2] = crdFor(kind).spec.versions;
    assert.equal(v1?.storage, true);
    assert.equal(v1alpha1?.storage, false);
    assert.equal(v1alpha1?.deprecated, true);
    assert.match(v1alpha1?.deprecationWarning ?? "", /deprecated/);
    const alphaSize = (v1alpha1?.schema.openAPIV3Schema.properties?.spec as JSONSchemaProps | undefined)
      ?.properties?.size;
    assert.deepEqual(alphaSize, { type: "string" });
    assert.deepEqual(
      v1alpha1?.additionalPrinterColumns?.map((column) => column.name),
      ["Ready", "Reason", "Size", "Age"],
    );
    assert.equal(v2?.served, false);
    assert.ok(v2?.schema.openAPIV3Schema.properties?.status, "every version gets the condition status");
  });

  it("moves storage to the version marked storage: true", () => {
    const kind = defineKind({ ...base, versions: [{ name: "v1beta1", spec: base.spec, storage: true }] });
    assert.deepEqual(
      kind.versions.map((version) => [version.name, version.storage]),
      [
        ["v1", false],
        ["v1beta1", true],
      ],
    );
  });

  it("rejects two storage versions", () => {
    const versions = [
      { name: "v1beta1", spec: base.spec, storage: true },
      { name: "v1alpha1", spec: base.spec, storage: true },
    ];
    assert.throws(
      () => defineKind({ ...base, versions }),
      (err: unknown) =>
        err instanceof KindDefinitionError &&
        /v1beta1, v1alpha1 are all marked storage: true/.test(err.message),
    );
  });

  it("rejects duplicate version names", () => {
    assert.throws(
      () => defineKind({ ...base, versions: [{ name: "v1", spec: base.spec }] }),
      /version v1 is declared twice/,
    );
  });

  it("rejects a deprecation warning on a version that is not deprecated", () => {
    assert.throws(
      () =>
        defineKind({ ...base, versions: [{ name: "v1beta1", spec: base.spec, deprecationWarning: "old" }] }),
      /has a deprecationWarning but is not deprecated/,
    );
  });
});
