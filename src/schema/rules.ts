/** Static checks of CEL rules (`x-kubernetes-validations`) before the apiserver sees them. */
import { SchemaError } from "./errors.ts";
import { isNode, type Node } from "./node.ts";

const ruleKeys = new Set(["rule", "message", "messageExpression", "fieldPath", "reason", "optionalOldSelf"]);
const reasons = new Set([
  "FieldValueInvalid",
  "FieldValueForbidden",
  "FieldValueRequired",
  "FieldValueDuplicate",
]);

/** Where a rule list sits. */
export interface RuleSite {
  readonly kindName: string;
  /** False below lists that are not maps, where old and new values cannot be paired. */
  readonly correlatable: boolean;
}

/**
 * Throws a {@link SchemaError} unless `rules` is a list of well-formed CEL rules for `node`:
 * a non-empty `rule`, a one-line `message`, a known `reason`, a `fieldPath` naming a declared
 * field, and transition rules (`oldSelf`) only where old and new values can be correlated.
 */
export function checkRules(rules: unknown, node: Node, path: string, site: RuleSite): void {
  if (rules === undefined) return;
  if (!Array.isArray(rules)) {
    throw new SchemaError(
      site.kindName,
      path,
      "x-kubernetes-validations must be a list of rules",
      "use withRules(field, ...)",
    );
  }
  for (const rule of rules) {
    const problem = ruleProblem(rule, node, site);
    if (problem) throw new SchemaError(site.kindName, path, problem.cause, problem.fix);
  }
}

/** What is wrong with one rule, if anything. */
function ruleProblem(rule: unknown, node: Node, site: RuleSite): { cause: string; fix: string } | undefined {
  if (!isNode(rule) || typeof rule.rule !== "string" || rule.rule.trim() === "") {
    return {
      cause: `CEL rule ${JSON.stringify(rule)} has no rule expression`,
      fix: 'write it as { rule: "self.a < self.b", message }',
    };
  }
  const name = `CEL rule "${rule.rule}"`;
  const unknown = Object.keys(rule).filter((key) => !ruleKeys.has(key));
  if (unknown.length > 0)
    return { cause: `${name} has unknown keys ${unknown.join(", ")}`, fix: "remove them" };
  if (typeof rule.message === "string" && (rule.message.trim() === "" || /[\r\n]/.test(rule.message))) {
    return { cause: `${name} has an empty or multi-line message`, fix: "use one non-empty line" };
  }
  if (rule.reason !== undefined && !reasons.has(rule.reason as string)) {
    return {
      cause: `${name} has reason ${JSON.stringify(rule.reason)}`,
      fix: `use one of ${[...reasons].join(", ")}`,
    };
  }
  if (rule.fieldPath !== undefined && !fieldPathResolves(node, rule.fieldPath)) {
    return {
      cause: `${name} has fieldPath ${JSON.stringify(rule.fieldPath)}, which names no declared field`,
      fix: 'use a path relative to the field the rule is on, starting with ".", e.g. ".replicas"',
    };
  }
  if (/\boldSelf\b/.test(rule.rule) && !site.correlatable) {
    return {
      cause: `transition ${name} sits below a list that is not a map, where old values cannot be found`,
      fix: "move the rule above the list, or make the list a map with listMap(array, key)",
    };
  }
  return undefined;
}

/** True when a simple `.a.b` path resolves through declared properties (other forms are not checked). */
function fieldPathResolves(node: Node, fieldPath: unknown): boolean {
  if (typeof fieldPath !== "string" || !/^[.[]/.test(fieldPath)) return false;
  if (!/^(\.[A-Za-z_][\w-]*)+$/.test(fieldPath)) return true;
  let current: unknown = node;
  for (const segment of fieldPath.slice(1).split(".")) {
    const properties = isNode(current) && isNode(current.properties) ? current.properties : {};
    current = properties[segment];
    if (current === undefined) return false;
  }
  return true;
}
