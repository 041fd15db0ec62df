/** What a validation handler answers: allow (perhaps with warnings) or deny (with field causes). */

/** A field a denial blames, as `kubectl` shows it: `spec.host: must not contain spaces`. */
export interface FieldCause {
  /** The field's path, e.g. `spec.rules[0].host`. */
  readonly field: string;
  readonly message: string;
  /** The metav1.CauseType; default `FieldValueInvalid`. */
  readonly type?: string;
}

/** Options of {@link Verdict.deny}. */
export interface DenyOptions {
  /** The fields at fault: the answer becomes a 422 `Invalid`, as the apiserver's own validation. */
  readonly causes?: readonly FieldCause[];
  /** Shown to the client besides the denial. */
  readonly warnings?: readonly string[];
}

/**
 * What a validation handler decides. Return nothing (or {@link Verdict.allow}) to admit the
 * request, {@link Verdict.deny} to refuse it with a message (and the fields at fault). A handler
 * that throws is not a denial but a failure: the request is refused with code 500 and the
 * failure logged and counted.
 *
 * @example
 * ```ts
 * if (route.spec.host.includes(" ")) {
 *   return Verdict.deny("the host is unsafe", {
 *     causes: [{ field: "spec.host", message: "must not contain spaces" }],
 *   });
 * }
 * return Verdict.allow("spec.timeout is deprecated");
 * ```
 */
export class Verdict {
  /** Whether the request is admitted. */
  readonly allowed: boolean;
  /** Why it is denied; empty when allowed. */
  readonly message: string;
  readonly causes: readonly FieldCause[];
  readonly warnings: readonly string[];

  private constructor(allowed: boolean, message: string, options: DenyOptions) {
    this.allowed = allowed;
    this.message = message;
    this.causes = options.causes ?? [];
    this.warnings = options.warnings ?? [];
  }

  /** Admits the request, showing `warnings` to the client (`kubectl` prints them). */
  static allow(...warnings: string[]): Verdict {
    return new Verdict(true, "", { warnings });
  }

  /**
   * Refuses the request with `message`: a 403 `Forbidden`, or with `causes` a 422 `Invalid` whose
   * causes name the fields at fault.
   */
  static deny(message: string, options: DenyOptions = {}): Verdict {
    return new Verdict(false, message, options);
  }
}
