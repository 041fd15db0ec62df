/**
 * Helpers that attach Kubernetes schema markers to zod schemas through `.meta()`. They are
 * shorthands: writing the same `x-kubernetes-*` keys into `.meta()` by hand has the same effect.
 */
import { z } from "zod";
import type { CelRule } from "./types.ts";

/** The meta key that opts a node into `x-kubernetes-preserve-unknown-fields`. */
export const PRESERVE_UNKNOWN = "x-kubernetes-preserve-unknown-fields";
/** The meta key holding CEL rules (`x-kubernetes-validations`). */
export const VALIDATIONS = "x-kubernetes-validations";

/**
 * Marks a field whose contents the apiserver keeps without a schema
 * (`x-kubernetes-preserve-unknown-fields: true`). Without an argument it is a free-form object,
 * `z.record(z.string(), z.unknown())`; pass `z.unknown()` to accept any JSON value, or a
 * `z.looseObject({...})` to keep unknown fields next to declared ones. Unknown-typed fields are
 * rejected by CRD generation unless marked this way.
 *
 * @example
 * ```ts
 * const spec = z.object({ values: preserveUnknown() });
 * ```
 */
export function preserveUnknown(): z.ZodRecord<z.ZodString, z.ZodUnknown>;
export function preserveUnknown<T extends z.ZodType>(schema: T): T;
export function preserveUnknown(schema?: z.ZodType): z.ZodType {
  return (schema ?? z.record(z.string(), z.unknown())).meta({ [PRESERVE_UNKNOWN]: true });
}

/**
 * Adds CEL validation rules to a field (appending to rules already declared on it). Rules see
 * the field's value as `self`; transition rules also see `oldSelf`.
 *
 * @example
 * ```ts
 * const range = withRules(z.object({ min: z.int(), max: z.int() }), {
 *   rule: "self.min <= self.max",
 *   message: "min must not exceed max",
 *   fieldPath: ".min",
 * });
 * ```
 */
export function withRules<T extends z.ZodType>(schema: T, ...rules: CelRule[]): T {
  const existing = (schema.meta()?.[VALIDATIONS] as CelRule[] | undefined) ?? [];
  return schema.meta({ [VALIDATIONS]: [...existing, ...rules] });
}

/**
 * Makes a field immutable once the object exists (`self == oldSelf`). On an optional field the
 * rule only guards changes of a present value; to forbid adding or removing it, put a rule such
 * as `has(self.x) == has(oldSelf.x)` on the parent object.
 */
export function immutable<T extends z.ZodType>(schema: T, message = "is immutable"): T {
  return withRules(schema, { rule: "self == oldSelf", message });
}

/**
 * Declares an array of objects as a map keyed by the given item fields
 * (`x-kubernetes-list-type: map`), so server-side apply merges entries by key and the apiserver
 * rejects duplicate keys. The keys must be required (or defaulted) scalar fields of the items.
 */
export function listMap<T extends z.ZodArray>(schema: T, ...keys: [string, ...string[]]): T {
  return schema.meta({ "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": keys });
}
