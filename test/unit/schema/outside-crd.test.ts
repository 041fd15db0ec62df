import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { defineKind, KindDefinitionError, SpecValidationError } from "../../../src/schema/index.ts";

const kind = (spec: z.ZodType, versions = {}) =>
  defineKind({ group: "example.com", version: "v1", kind: "Site", scope: "Namespaced", spec, ...versions });

describe("checks a CRD cannot carry", () => {
  it("lists the paths of the refinements and superRefinements, the spec's own too", () => {
    const Site = kind(
      z
        .object({
          url: z.string().refine((v) => v.startsWith("https://"), "must be https"),
          limits: z.object({ min: z.int(), max: z.int() }).superRefine(() => undefined),
          replicas: z.int().min(1),
        })
        .refine(() => true),
    );
    assert.deepEqual([...Site.refinements].sort(), [".spec", ".spec.limits", ".spec.url"]);
  });

  it("lists none for a schema the CRD carries whole", () => {
    assert.deepEqual(
      kind(z.object({ replicas: z.int().min(1), name: z.string().regex(/^a/) })).refinements,
      [],
    );
  });

  for (const [what, field] of [
    ["a .transform()", z.string().transform((v) => v.length)],
    ["a z.preprocess()", z.preprocess((v) => v, z.string())],
    ["a .trim()", z.string().trim()],
    ["a z.custom()", z.custom<string>((v) => typeof v === "string")],
  ] as const) {
    it(`refuses ${what}, naming the field, and points at CEL rules`, () => {
      assert.throws(
        () => kind(z.object({ name: field })),
        (err: unknown) =>
          err instanceof KindDefinitionError &&
          err.message.includes(".spec.name") &&
          err.message.includes("withRules") &&
          err.message.includes("webhook"),
      );
    });
  }

  it("refuses a transform in another served version too", () => {
    assert.throws(
      () =>
        kind(z.object({}), {
          versions: [{ name: "v1beta1", spec: z.object({ n: z.string().toLowerCase() }) }],
        }),
      KindDefinitionError,
    );
  });

  it("says in a SpecValidationError that refinements are the controller's to check, not the CRD's", () => {
    const Site = kind(z.object({ url: z.string().refine((v) => v.startsWith("https://"), "must be https") }));
    assert.throws(
      () => Site.parseSpec({ url: "http://x" }),
      (err: unknown) =>
        err instanceof SpecValidationError &&
        /\.spec\.url: must be https/.test(err.message) &&
        /not one that fails a refinement/.test(err.message) &&
        !/makes the apiserver reject such objects before they reach the reconciler/.test(err.message),
    );
  });
});
