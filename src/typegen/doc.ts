/**
 * TSDoc comments from schema descriptions, with the Kubernetes markers that change how a field is
 * merged or validated (list and map semantics, unknown fields kept, embedded objects) spelled out.
 */
import type { Schema } from "./schema.ts";

/** The `/** ... *\/` comment documenting `schema`, indented by `indent`; `""` when it has nothing to say. */
export function docComment(schema: Schema, indent = ""): string {
  const lines = [...descriptionLines(schema.description), ...markerLines(schema)];
  if (lines.length === 0) return "";
  const body = lines.map((line) => `${indent} *${line ? ` ${line}` : ""}`).join("\n");
  return `${indent}/**\n${body}\n${indent} */\n`;
}

/** The description, split into lines, trimmed, and made safe inside a block comment. */
function descriptionLines(description: string | undefined): string[] {
  const text = description?.trim();
  if (!text) return [];
  return text.split("\n").map((line) => line.trimEnd().replaceAll("*/", "*\\/"));
}

/** One line per marker, after a blank line when there is a description above. */
function markerLines(schema: Schema): string[] {
  const markers = [
    defaultMarker(schema.default),
    schema["x-kubernetes-list-type"] &&
      `List type: \`${schema["x-kubernetes-list-type"]}\`${mapKeys(schema)}.`,
    schema["x-kubernetes-map-type"] && `Map type: \`${schema["x-kubernetes-map-type"]}\`.`,
    schema["x-kubernetes-preserve-unknown-fields"] && "Unknown fields are preserved.",
    schema["x-kubernetes-embedded-resource"] &&
      "An embedded object with its own apiVersion, kind and metadata.",
  ].filter((line): line is string => typeof line === "string");
  return markers.length > 0 && schema.description?.trim() ? ["", ...markers] : markers;
}

function mapKeys(schema: Schema): string {
  const keys = schema["x-kubernetes-list-map-keys"];
  return keys?.length ? `, keyed by ${keys.map((k) => `\`${k}\``).join(", ")}` : "";
}

/** `@defaultValue` with the default as JSON, except the empty object every `$ref` wrapper carries. */
function defaultMarker(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "object" && value !== null && Object.keys(value).length === 0) return undefined;
  return `@defaultValue \`${JSON.stringify(value).replaceAll("*/", "*\\/")}\``;
}
