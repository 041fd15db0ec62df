import type { ResourceType } from "../api/index.ts";
import { KubeloopError } from "../errors/index.ts";

const SHOWN_CHARS = 80;

/** Quotes a bad value for an error message, cut short when it is long. */
function show(value: unknown): string {
  if (typeof value !== "string") return String(value);
  if (value.length <= SHOWN_CHARS) return JSON.stringify(value);
  return `${JSON.stringify(value.slice(0, SHOWN_CHARS))}... (${value.length} characters)`;
}

/**
 * A condition the apiserver would reject, or a condition set declared against the conventions: a
 * bad type, reason, status, time or generation, a reserved or undeclared type, an unknown polarity.
 * It is a programming error, thrown where the bad value enters so the stack points at the caller.
 * The message names the value, the rule and a valid example. Code `KL_INVALID_CONDITION`.
 */
export class InvalidConditionError extends KubeloopError {
  /** Which part is wrong: `type`, `reason`, `status`, `lastTransitionTime`, `observedGeneration`, ... */
  readonly field: string;
  /** The rejected value. */
  readonly value: unknown;

  constructor(field: string, value: unknown, rule: string, example: string) {
    super(
      "KL_INVALID_CONDITION",
      `invalid condition ${field} ${show(value)}: ${rule}; for example ${example}`,
    );
    this.field = field;
    this.value = value;
  }
}

/**
 * The status of an object whose kind has no status subresource: `/status` answers 404 while the
 * object exists. Code `KL_STATUS_SUBRESOURCE`.
 */
export class StatusSubresourceMissingError extends KubeloopError {
  constructor(type: ResourceType, cause: Error) {
    super(
      "KL_STATUS_SUBRESOURCE",
      `cannot write the status of ${type.kind} (${type.apiVersion}, ${type.plural}): its CustomResourceDefinition has no status subresource. Fix: add \`subresources: { status: {} }\` to the served version (kinds made with defineKind have it; regenerate and apply the CRD with \`kubeloop generate\`)`,
      { cause },
    );
  }
}

/**
 * `updateStatus` was called with what it cannot write: an object without `metadata.name`, or a
 * compute function that returned something other than the whole status object. Code
 * `KL_INVALID_STATUS_UPDATE`.
 */
export class InvalidStatusUpdateError extends KubeloopError {
  constructor(problem: string, fix: string) {
    super("KL_INVALID_STATUS_UPDATE", `updateStatus: ${problem}; ${fix}`);
  }
}
