/**
 * Label selectors in their string form (`app=web,tier!=db,env in (a,b),!legacy,owner`),
 * parsed once and matched against label maps, as the apiserver does.
 */
import { KubeloopError } from "../errors/index.ts";

type Requirement =
  | { key: string; op: "in" | "notin"; values: Set<string> }
  | { key: string; op: "exists" | "doesnotexist" };

/** A parsed label selector. */
export interface LabelSelectorMatcher {
  /** True when the labels satisfy every requirement. */
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
  /** The selector in string form. */
  readonly text: string;
}

/** An unparseable selector. Code `KL_INVALID_SELECTOR`. */
export class InvalidSelectorError extends KubeloopError {
  constructor(selector: string, part: string) {
    super(
      "KL_INVALID_SELECTOR",
      `invalid label selector "${selector}": cannot parse "${part}" (use e.g. "app=web,tier in (a,b),!legacy")`,
    );
  }
}

function splitTopLevel(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of selector) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      parts.push(current.trim());
      current = "";
    } else current += ch;
  }
  if (current.trim()) parts.push(current.trim());
  return parts;
}

function parseRequirement(selector: string, part: string): Requirement {
  let m = /^!\s*([\w./-]+)$/.exec(part);
  if (m?.[1]) return { key: m[1], op: "doesnotexist" };
  m = /^([\w./-]+)\s*(==|=|!=)\s*([\w./-]*)$/.exec(part);
  if (m?.[1] && m[2]) return { key: m[1], op: m[2] === "!=" ? "notin" : "in", values: new Set([m[3] ?? ""]) };
  m = /^([\w./-]+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(part);
  if (m?.[1] && m[2]) {
    const values = new Set((m[3] ?? "").split(",").map((v) => v.trim()));
    return { key: m[1], op: m[2] as "in" | "notin", values };
  }
  m = /^([\w./-]+)$/.exec(part);
  if (m?.[1]) return { key: m[1], op: "exists" };
  throw new InvalidSelectorError(selector, part);
}

function satisfies(req: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, req.key);
  switch (req.op) {
    case "exists":
      return has;
    case "doesnotexist":
      return !has;
    case "in":
      return has && req.values.has(labels[req.key] as string);
    case "notin":
      return !has || !req.values.has(labels[req.key] as string);
  }
}

/** Parses a label selector string; the empty string matches everything. */
export function parseLabelSelector(selector: string): LabelSelectorMatcher {
  const requirements = splitTopLevel(selector).map((part) => parseRequirement(selector, part));
  return {
    text: selector,
    matches: (labels) => requirements.every((r) => satisfies(r, labels ?? {})),
  };
}

/** A selector string from `matchLabels`, e.g. `{ app: "web" }` → `app=web`. */
export function selectorFromLabels(labels: Readonly<Record<string, string>>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
}
