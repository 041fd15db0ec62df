import { KubeloopError } from "../errors/index.ts";

/**
 * A kind's schema cannot become a Kubernetes CRD schema: the apiserver would reject it, or it uses
 * a zod construct with no structural equivalent. Code `KL_SCHEMA`. The message names the kind, the
 * JSON path inside the object (`.spec.ports[*].name`), the cause and the fix.
 */
export class SchemaError extends KubeloopError {
  /** The kind whose schema is at fault (`LoadTest`), or `""` when converting a bare schema. */
  readonly kindName: string;
  /** Where in the object the fault is, e.g. `.spec.template.items[*]`. */
  readonly path: string;

  constructor(kindName: string, path: string, cause: string, fix: string) {
    super("KL_SCHEMA", `${kindName ? `kind ${kindName}, ` : ""}${path || "."}: ${cause}. Fix: ${fix}`);
    this.kindName = kindName;
    this.path = path;
  }
}

/**
 * The options given to `defineKind` (names, versions, printer columns, CEL rules) are invalid.
 * Code `KL_SCHEMA_KIND`.
 */
export class KindDefinitionError extends KubeloopError {
  /** The kind being defined. */
  readonly kindName: string;

  constructor(kindName: string, cause: string, fix: string) {
    super("KL_SCHEMA_KIND", `defineKind(${kindName || "?"}): ${cause}. Fix: ${fix}`);
    this.kindName = kindName;
  }
}

/**
 * An object's spec does not satisfy its kind's zod schema (thrown by `parseSpec`).
 * Code `KL_SCHEMA_INVALID`.
 */
export class SpecValidationError extends KubeloopError {
  /** The kind whose spec failed validation. */
  readonly kindName: string;
  /** One line per problem: `path: message`. */
  readonly issues: readonly string[];

  constructor(kindName: string, issues: readonly string[], cause: unknown) {
    super(
      "KL_SCHEMA_INVALID",
      `${kindName} spec is invalid:\n  ${issues.join("\n  ")}\n` +
        "Fix the object, or relax the schema if the value should be allowed. The kind's CRD makes the apiserver " +
        "reject an object of the wrong types or out of bounds, but not one that fails a refinement (.refine(), " +
        ".superRefine()): the controller checks those before each reconcile (reason SpecInvalid); a CEL rule " +
        "(withRules) or a validating webhook rejects them at the apiserver.",
      { cause },
    );
    this.kindName = kindName;
    this.issues = issues;
  }
}
