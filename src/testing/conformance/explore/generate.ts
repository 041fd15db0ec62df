/**
 * Spec changes generated from a kind's structural schema, as Acto (SOSP '23) drives an operator
 * through state transitions: for every field, values by type — enum members, integer boundaries
 * (minimum, maximum, one past each, 0), strings (valid per pattern and length, and invalid), a
 * boolean flipped, a list grown and shrunk, an optional field removed — plus deleting and
 * recreating the primary object. Values the schema refuses are marked invalid: the apiserver must
 * refuse them. Pure: no cluster, no clock, no randomness of its own.
 */
import type { JSONSchemaProps } from "../../../schema/index.ts";

/** One change of a trial. */
export type Step =
  /** Set the field at `path` (from the object's root, e.g. `["spec", "replicas"]`). */
  | { op: "set"; path: string[]; value: unknown; valid: boolean; why: string }
  /** Remove the optional field at `path`. */
  | { op: "remove"; path: string[]; why: string }
  /** Delete the primary object and create it again with its current spec. */
  | { op: "recreate" };

/** One line on a step: `spec.replicas = 6 (maximum+1, invalid)`. */
export function describeStep(step: Step): string {
  if (step.op === "recreate") return "delete and recreate the primary";
  const field = step.path.join(".");
  if (step.op === "remove") return `remove ${field} (${step.why})`;
  return `${field} = ${shortJson(step.value)} (${step.why}${step.valid ? "" : ", invalid"})`;
}

function shortJson(value: unknown): string {
  const text = JSON.stringify(value) ?? "undefined";
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/** Stock strings tried, in order, for a valid value of a string with a pattern. */
const stockStrings = ["explored", "a", "abc", "a-1", "x1", "A", "1", "a.b", "a_b", "a@b.c", "https://a.b/c"];

type Candidate = { value: unknown; valid: boolean; why: string };

function matches(schema: JSONSchemaProps, value: string): boolean {
  if (schema.minLength !== undefined && value.length < schema.minLength) return false;
  if (schema.maxLength !== undefined && value.length > schema.maxLength) return false;
  return schema.pattern === undefined || new RegExp(schema.pattern, "u").test(value);
}

/** A string the schema accepts, or undefined when none of the stock strings (stretched to minLength) does. */
function validString(schema: JSONSchemaProps): string | undefined {
  for (const stock of stockStrings) {
    const value = stock.padEnd(schema.minLength ?? 0, stock.at(-1));
    if (matches(schema, value)) return value;
  }
  return undefined;
}

function stringCandidates(schema: JSONSchemaProps): Candidate[] {
  const out: Candidate[] = [];
  const valid = validString(schema);
  if (valid !== undefined) out.push({ value: valid, valid: true, why: "a valid string" });
  if (schema.pattern !== undefined && !matches(schema, "!nvalid ")) {
    out.push({ value: "!nvalid ", valid: false, why: `not matching ${schema.pattern}` });
  }
  const fill = (n: number) => (valid ?? "a").padEnd(n, (valid ?? "a").at(-1)).slice(0, n);
  if (schema.minLength !== undefined && schema.minLength > 0)
    out.push({ value: fill(schema.minLength - 1), valid: false, why: "minLength-1" });
  if (schema.maxLength !== undefined) {
    const longest = fill(schema.maxLength);
    out.push({ value: longest, valid: matches(schema, longest), why: "maxLength" });
    out.push({ value: fill(schema.maxLength + 1), valid: false, why: "maxLength+1" });
  }
  return out;
}

function numberCandidates(schema: JSONSchemaProps): Candidate[] {
  const { minimum: min, maximum: max } = schema;
  const inRange = (n: number) =>
    (min === undefined || (schema.exclusiveMinimum ? n > min : n >= min)) &&
    (max === undefined || (schema.exclusiveMaximum ? n < max : n <= max));
  const picks: [number, string][] = [[0, "zero"]];
  if (min !== undefined) picks.push([min, "minimum"], [min - 1, "minimum-1"]);
  if (max !== undefined) picks.push([max, "maximum"], [max + 1, "maximum+1"]);
  if (min === undefined && max === undefined) picks.push([1, "one"], [-1, "minus one"]);
  const seen = new Set<number>();
  return picks
    .filter(([n]) => !seen.has(n) && seen.add(n))
    .map(([value, why]) => ({ value, valid: inRange(value), why }));
}

/** A value the schema accepts (the first enum member, the smallest number, an object of its required fields). */
export function sampleValue(schema: JSONSchemaProps): unknown {
  if (schema.enum?.length) return schema.enum[0];
  switch (schema.type) {
    case "integer":
    case "number":
      return numberCandidates(schema).find((c) => c.valid)?.value ?? schema.minimum ?? 0;
    case "boolean":
      return true;
    case "string":
      return validString(schema) ?? "";
    case "array":
      return Array.from({ length: schema.minItems ?? 0 }, () => sampleValue(schema.items ?? {}));
    case "object":
      return Object.fromEntries(
        (schema.required ?? []).map((name) => [name, sampleValue(schema.properties?.[name] ?? {})]),
      );
    default:
      return "explored";
  }
}

function arrayCandidates(schema: JSONSchemaProps, current: unknown): Candidate[] {
  const list = Array.isArray(current) ? current : [];
  const item = sampleValue(schema.items ?? {});
  const grown = [...list, item];
  const out: Candidate[] = [
    { value: grown, valid: schema.maxItems === undefined || grown.length <= schema.maxItems, why: "grown" },
  ];
  if (list.length > 0)
    out.push({ value: list.slice(0, -1), valid: list.length - 1 >= (schema.minItems ?? 0), why: "shrunk" });
  if (schema.maxItems !== undefined && list.length <= schema.maxItems) {
    const full = Array.from({ length: schema.maxItems + 1 }, (_, i) => list[i] ?? item);
    out.push({ value: full, valid: false, why: "maxItems+1" });
  }
  return out;
}

/** The values to try for one field, by its schema and current value. */
export function fieldCandidates(schema: JSONSchemaProps, current: unknown): Candidate[] {
  if (schema.enum?.length) {
    return [
      ...schema.enum.map((value) => ({ value, valid: true, why: "enum member" })),
      { value: "not-a-member", valid: false, why: "not an enum member" },
    ];
  }
  switch (schema.type) {
    case "integer":
    case "number":
      return numberCandidates(schema);
    case "boolean":
      return [{ value: current !== true, valid: true, why: "flipped" }];
    case "string":
      return stringCandidates(schema);
    case "array":
      return arrayCandidates(schema, current);
    default:
      return [];
  }
}

const at = (value: unknown, key: string): unknown =>
  value && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;

/**
 * Every step to try on an object whose `spec` follows `schema` (the spec's own schema), given the
 * object's current spec; ends with the recreate step. Deterministic: the same input, the same list.
 */
export function candidateSteps(schema: JSONSchemaProps, spec: unknown): Step[] {
  return [...fieldSteps(schema, spec, ["spec"]), { op: "recreate" }];
}

function fieldSteps(schema: JSONSchemaProps, value: unknown, path: string[]): Step[] {
  const steps: Step[] = [];
  const required = new Set(schema.required ?? []);
  for (const [name, field] of Object.entries(schema.properties ?? {}).sort(([a], [b]) =>
    a.localeCompare(b),
  )) {
    const current = at(value, name);
    const fieldPath = [...path, name];
    if (field.type === "object" && field.properties) {
      steps.push(...fieldSteps(field, current ?? sampleValue(field), fieldPath));
    } else {
      for (const c of fieldCandidates(field, current)) steps.push({ op: "set", path: fieldPath, ...c });
    }
    if (!required.has(name) && current !== undefined)
      steps.push({ op: "remove", path: fieldPath, why: "optional" });
  }
  return steps;
}

/** A copy of `obj` with `step` (a set or a remove) applied; parents of a set field are created. */
export function applyChange<T>(obj: T, step: Exclude<Step, { op: "recreate" }>): T {
  const copy = structuredClone(obj) as Record<string, unknown>;
  let parent = copy;
  for (const key of step.path.slice(0, -1)) {
    const next = parent[key];
    if (!next || typeof next !== "object") parent[key] = {};
    parent = parent[key] as Record<string, unknown>;
  }
  const last = step.path.at(-1) ?? "";
  if (step.op === "remove") delete parent[last];
  else parent[last] = structuredClone(step.value);
  return copy as T;
}
