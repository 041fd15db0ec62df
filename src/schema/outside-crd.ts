/**
 * The zod checks a CRD cannot carry, which `z.toJSONSchema` leaves out without a word. A
 * refinement (`.refine()`, `.superRefine()`, `.check(fn)`) is listed on the kind and enforced by its
 * controller before the reconciler (condition reason `SpecInvalid`); a transform or a `z.custom()`
 * type is refused, since the apiserver stores an object as it was written: the reconciler would
 * read what the transform never changed.
 */
import { z } from "zod";
import { KindDefinitionError } from "./errors.ts";
import { pathFromSchemaLocation } from "./node.ts";

interface ZodDef {
  type: string;
  checks?: { _zod: { def: { check: string } } }[];
  in?: { _zod: { def: ZodDef } };
  out?: { _zod: { def: ZodDef } };
}

/** What checks a value at the apiserver instead, named in the messages below. */
const INSTEAD =
  "a CEL rule (withRules(field, { rule, message }) from kubeloop/schema, checked by the apiserver) or a validating webhook";

/**
 * The paths in `schema` (under `base`, e.g. `.spec`) of its refinements: the checks the CRD
 * cannot carry, which the controller runs before the reconciler. Throws a `KindDefinitionError`
 * for a transform (`.transform()`, `z.preprocess()`, `.overwrite()` and what uses it: `.trim()`,
 * `.toLowerCase()`, ...) or a `z.custom()` type.
 */
export function refinementsOf(schema: z.ZodType, kindName: string, base: string): string[] {
  const found: string[] = [];
  z.toJSONSchema(schema, {
    target: "openapi-3.0",
    io: "input",
    cycles: "ref",
    reused: "inline",
    unrepresentable: "any",
    override: ({ zodSchema, path }) => {
      const def = (zodSchema as unknown as { _zod: { def: ZodDef } })._zod.def;
      const where = pathFromSchemaLocation(base, path);
      refuseTransforms(def, kindName, where);
      if (checksOf(def).includes("custom") && !found.includes(where)) found.push(where);
    },
  });
  return found;
}

function checksOf(def: ZodDef): string[] {
  return (def.checks ?? []).map((check) => check._zod.def.check);
}

function refuseTransforms(def: ZodDef, kindName: string, where: string): void {
  if (def.type === "custom") {
    throw new KindDefinitionError(
      kindName,
      `${where} is a z.custom() type, which has no OpenAPI schema for the CRD`,
      `use a JSON type (z.string(), z.object({...}), ...) and check what the function checked with .refine() or ${INSTEAD}`,
    );
  }
  const transform =
    def.type === "transform" ||
    def.in?._zod.def.type === "transform" ||
    def.out?._zod.def.type === "transform";
  if (transform || checksOf(def).includes("overwrite")) {
    throw new KindDefinitionError(
      kindName,
      `${where} transforms its value (.transform(), z.preprocess() or .overwrite(), as .trim() and .toLowerCase() do), which the CRD cannot carry: the apiserver stores the object as written, and the reconciler reads it so`,
      `remove the transform and compute the value in the reconciler (or use .default()); to reject a value instead, use .refine() or ${INSTEAD}`,
    );
  }
}
