/**
 * Step one of CRD schema generation: zod's own `toJSONSchema` (OpenAPI 3.0 target, input side),
 * with an `override` hook for what only the zod schema knows (which string formats Kubernetes
 * validates itself, regex flags, tuples) and clear errors for unrepresentable types.
 */
import { z } from "zod";
import { SchemaError } from "./errors.ts";
import { type Node, pathFromSchemaLocation } from "./node.ts";

/** zod string formats the apiserver checks itself, with the Kubernetes format name. */
const kubernetesFormats: Record<string, string> = {
  datetime: "date-time",
  date: "date",
  email: "email",
  url: "uri",
  uuid: "uuid",
  guid: "uuid",
  hostname: "hostname",
  ipv4: "ipv4",
  ipv6: "ipv6",
  cidrv4: "cidr",
  cidrv6: "cidr",
  mac: "mac",
  base64: "byte",
};

const fixes: Record<string, string> = {
  date: "use z.iso.datetime() (an RFC 3339 string, format date-time)",
  bigint: "use z.int() (int64)",
  set: 'use z.array(...) marked .meta({ "x-kubernetes-list-type": "set" })',
  map: "use z.record(z.string(), ...)",
};

interface FormatCheckDef {
  check?: string;
  format?: string;
  pattern?: RegExp;
  local?: boolean;
  precision?: number | null;
}

interface ZodInternals {
  _zod: {
    def: { type: string; checks?: { _zod: { def: FormatCheckDef } }[] } & FormatCheckDef;
    traits: Set<string>;
  };
}

/**
 * Converts a zod schema to an (unrewritten) OpenAPI 3.0 JSON Schema. `base` is the object path of
 * the schema (`.spec`) used in error messages.
 */
export function zodToJsonSchema(schema: z.ZodType, kindName: string, base: string): Node {
  return z.toJSONSchema(schema, {
    target: "openapi-3.0",
    io: "input",
    cycles: "ref",
    reused: "inline",
    unrepresentable: ({ zodSchema, path }) => {
      const type = (zodSchema as unknown as ZodInternals)._zod.def.type;
      const where = pathFromSchemaLocation(base, path);
      throw new SchemaError(
        kindName,
        where,
        `z.${type}() has no JSON representation`,
        fixes[type] ?? "use a JSON type",
      );
    },
    override: ({ zodSchema, jsonSchema, path }) => {
      const internals = zodSchema as unknown as ZodInternals;
      if (internals._zod.def.type === "tuple") {
        throw new SchemaError(
          kindName,
          pathFromSchemaLocation(base, path),
          "tuples have no structural CRD schema",
          "use an object with named fields, or an array of one item type",
        );
      }
      if (internals._zod.def.type === "string") fixStringFormats(internals, jsonSchema as Node);
    },
  }) as Node;
}

/** The string-format checks of a zod string schema, its own format first. */
function formatChecks(schema: ZodInternals): FormatCheckDef[] {
  const def = schema._zod.def;
  const own = schema._zod.traits.has("$ZodCheck") ? [def] : [];
  const checks = (def.checks ?? []).map((check) => check._zod.def);
  return [...own, ...checks].filter((check) => check.check === "string_format" && check.format !== undefined);
}

/**
 * Keeps the format for the formats Kubernetes validates and drops zod's regex for them (long,
 * and often using lookarounds the apiserver's RE2 rejects); keeps user patterns with their flags.
 */
function fixStringFormats(schema: ZodInternals, json: Node): void {
  const checks = formatChecks(schema);
  if (checks.length === 0) return;
  let format: string | undefined;
  const patterns: string[] = [];
  for (const check of checks) {
    const mapped = kubernetesFormats[check.format ?? ""];
    const lax = check.local === true || check.precision === -1;
    if (mapped && !lax) format ??= mapped;
    else if (check.pattern) patterns.push(re2Source(check.pattern));
  }
  for (const key of ["format", "pattern", "contentEncoding", "allOf"]) delete json[key];
  if (format) json.format = format;
  if (patterns.length === 1) json.pattern = patterns[0];
  if (patterns.length > 1) json.allOf = patterns.map((pattern) => ({ pattern }));
}

/** A RegExp's source with its `i`, `m` and `s` flags as RE2 inline flags (`(?i)...`). */
function re2Source(regex: RegExp): string {
  const flags = [...regex.flags].filter((flag) => "ims".includes(flag)).join("");
  return flags ? `(?${flags})${regex.source}` : regex.source;
}
