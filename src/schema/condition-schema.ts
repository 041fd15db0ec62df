/**
 * The parts of every kubeloop CRD that do not come from the user's schema: `status.conditions`
 * exactly as controller-gen emits metav1.Condition, `status.observedGeneration`, and the printer
 * columns that surface the summary condition.
 */
import type { ConditionSetLike, JSONSchemaProps, PrinterColumn } from "./types.ts";

/** The schema of one metav1.Condition, as controller-gen emits it (descriptions included). */
export function conditionSchema(): JSONSchemaProps {
  return {
    description: "Condition contains details for one aspect of the current state of this API Resource.",
    properties: {
      lastTransitionTime: {
        description:
          "lastTransitionTime is the last time the condition transitioned from one status to another.\n" +
          "This should be when the underlying condition changed.  If that is not known, then using the time when the API field changed is acceptable.",
        format: "date-time",
        type: "string",
      },
      message: {
        description:
          "message is a human readable message indicating details about the transition.\nThis may be an empty string.",
        maxLength: 32768,
        type: "string",
      },
      observedGeneration: {
        description:
          "observedGeneration represents the .metadata.generation that the condition was set based upon.\n" +
          "For instance, if .metadata.generation is currently 12, but the .status.conditions[x].observedGeneration is 9, the condition is out of date\n" +
          "with respect to the current state of the instance.",
        format: "int64",
        minimum: 0,
        type: "integer",
      },
      reason: {
        description:
          "reason contains a programmatic identifier indicating the reason for the condition's last transition.\n" +
          "Producers of specific condition types may define expected values and meanings for this field,\n" +
          "and whether the values are considered a guaranteed API.\n" +
          "The value should be a CamelCase string.\n" +
          "This field may not be empty.",
        maxLength: 1024,
        minLength: 1,
        pattern: "^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$",
        type: "string",
      },
      status: {
        description: "status of the condition, one of True, False, Unknown.",
        enum: ["True", "False", "Unknown"],
        type: "string",
      },
      type: {
        description: "type of condition in CamelCase or in foo.example.com/CamelCase.",
        maxLength: 316,
        pattern:
          "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$",
        type: "string",
      },
    },
    required: ["lastTransitionTime", "message", "reason", "status", "type"],
    type: "object",
  };
}

/** `status.conditions`: a list of conditions merged by `type` (a list map). */
export function conditionsField(): JSONSchemaProps {
  return {
    description: "Conditions describe the observed state of the object, one entry per condition type.",
    items: conditionSchema(),
    type: "array",
    "x-kubernetes-list-map-keys": ["type"],
    "x-kubernetes-list-type": "map",
  };
}

/** `status.observedGeneration`: the generation the controller last acted on. */
export function observedGenerationField(): JSONSchemaProps {
  return {
    description:
      "The .metadata.generation the controller last reconciled; lower than the generation means stale status.",
    format: "int64",
    type: "integer",
  };
}

/** The JSONPath of a field of the condition of the given type. */
function conditionPath(type: string, field: "status" | "reason" | "message"): string {
  return `.status.conditions[?(@.type=="${type}")].${field}`;
}

/**
 * The `Age` column `kubectl get` shows for every object. A kind lists it among its own printer
 * columns to place it (e.g. where an existing CRD had it); otherwise it comes last.
 */
export const AGE_COLUMN: PrinterColumn = {
  name: "Age",
  type: "date",
  jsonPath: ".metadata.creationTimestamp",
};

/**
 * The printer columns of a kind: the summary condition's status (column named after it, e.g.
 * `Ready`) and reason, the kind's own columns, then `Age` unless they placed it.
 */
export function printerColumnsFor(
  conditions: ConditionSetLike | undefined,
  custom: readonly PrinterColumn[],
): PrinterColumn[] {
  const summary: PrinterColumn[] = conditions
    ? [
        { name: conditions.summary, type: "string", jsonPath: conditionPath(conditions.summary, "status") },
        { name: "Reason", type: "string", jsonPath: conditionPath(conditions.summary, "reason") },
      ]
    : [];
  const placed = custom.some((column) => column.jsonPath === AGE_COLUMN.jsonPath);
  return [...summary, ...custom, ...(placed ? [] : [AGE_COLUMN])];
}
