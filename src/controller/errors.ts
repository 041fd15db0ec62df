/** Errors a user of the controller builder or of {@link Action} can cause. */
import { KubeloopError } from "../errors/index.ts";

/**
 * A builder method that needs the primary kind was called before `.for(kind)`: `.owns()` maps
 * children to owners of the primary kind, and `.reconcile()` reconciles it. Code
 * `KL_CONTROLLER_BUILDER`.
 */
export class ControllerBuilderError extends KubeloopError {
  constructor(method: string) {
    super(
      "KL_CONTROLLER_BUILDER",
      `controller builder: .${method}() was called before .for(kind); call .for(kind) first, ` +
        "e.g. controller(manager).for(Widget).owns(ConfigMap).reconcile(reconcileWidget)",
    );
  }
}

/**
 * `Action.requeueAfter(ms)` got a delay that is not a finite number of milliseconds >= 0. Code
 * `KL_INVALID_REQUEUE`.
 */
export class InvalidRequeueError extends KubeloopError {
  /** The rejected delay. */
  readonly ms: number;

  constructor(ms: number) {
    super(
      "KL_INVALID_REQUEUE",
      `Action.requeueAfter(${ms}): the delay must be a finite number of milliseconds >= 0; ` +
        "pass e.g. Action.requeueAfter(30_000), or return nothing to wait for a change",
    );
    this.ms = ms;
  }
}

/**
 * A reconcile ran longer than its controller's `reconciliationTimeoutMs`: its `ctx.signal` was
 * aborted with this error and its client fenced, and the key is retried with backoff. Code
 * `KL_RECONCILE_TIMEOUT`.
 */
export class ReconcileTimeoutError extends KubeloopError {
  /** The key whose reconcile timed out. */
  readonly key: string;
  /** The timeout, in milliseconds. */
  readonly timeoutMs: number;

  constructor(key: string, timeoutMs: number) {
    super(
      "KL_RECONCILE_TIMEOUT",
      `reconcile of ${key} ran longer than ${timeoutMs} ms (reconciliationTimeoutMs): its ctx.signal was aborted ` +
        "and its client fenced, and it is retried with backoff. Pass ctx.signal to every call that waits " +
        "(a hung call to an external API holds a reconcile), or raise reconciliationTimeoutMs",
    );
    this.key = key;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * A failure that retrying the same reconcile cannot fix, and that stalls its object until the
 * object or a watched input changes (typically a spec edit): the controller does not retry it
 * (like a `TerminalError`, recognised when wrapped, too), tells it as a Warning event with the
 * error's {@link StalledError.reason} and, on a kind with a condition set, turns the summary False
 * with that reason and `Stalled=True`. The controller's {@link SpecInvalidError} is one;
 * `ensureChild`'s `InvalidChildError` (`kubeloop/ownership`) is another.
 *
 * @example
 * ```ts
 * class QuotaPolicyError extends StalledError {
 *   constructor(limit: string) {
 *     super("KL_EXAMPLE_QUOTA_POLICY", "QuotaPolicy", `the spec asks for more than ${limit}; lower it`);
 *   }
 * }
 * ```
 */
export abstract class StalledError extends KubeloopError {
  /** The reason (CamelCase) of the Warning event and of the summary condition, e.g. `InvalidChild`. */
  readonly reason: string;

  constructor(code: string, reason: string, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.reason = reason;
  }
}

/**
 * A primary object's spec fails its kind's refinements (`.refine()`, `.superRefine()`), checks its
 * CRD cannot carry (the kind lists them in `refinements`): the controller did not call the
 * reconciler, and does not retry until the object changes. On a kind with a condition set, the
 * summary turns False with reason `SpecInvalid` and `Stalled=True`. Code `KL_SPEC_INVALID`.
 */
export class SpecInvalidError extends StalledError {
  /** The object's key, `namespace/name`. */
  readonly key: string;

  constructor(key: string, cause: unknown) {
    super(
      "KL_SPEC_INVALID",
      "SpecInvalid",
      `${key} was not reconciled: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
    this.key = key;
  }
}
