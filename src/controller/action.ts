import { KubeloopError } from "../errors/index.ts";
import { InvalidRequeueError } from "./errors.ts";

/**
 * What a successful reconcile asks for next. Return nothing (or {@link Action.awaitChange}) when
 * the object is converged and only a change should bring it back; return
 * {@link Action.requeueAfter} to look again after a delay (polling something outside the
 * cluster). A failure is never an Action: throw, and the error policy decides the retry.
 */
export class Action {
  /** Milliseconds until the key is reconciled again, or undefined to wait for a change. */
  readonly requeueAfterMs: number | undefined;

  private constructor(requeueAfterMs: number | undefined) {
    this.requeueAfterMs = requeueAfterMs;
  }

  /**
   * Reconcile again after `ms` milliseconds (resets the key's failure backoff). Throws
   * {@link InvalidRequeueError} unless `ms` is a finite number >= 0.
   */
  static requeueAfter(ms: number): Action {
    if (!Number.isFinite(ms) || ms < 0) throw new InvalidRequeueError(ms);
    return new Action(ms);
  }

  /** Converged: reconcile again only when a watched object changes (or on resync). */
  static awaitChange(): Action {
    return new Action(undefined);
  }
}

/**
 * A failure that retrying cannot fix (an invalid spec, a missing permission that needs a human).
 * The key is not retried; the error is still logged and counted
 * (`controller_runtime_terminal_reconcile_errors_total`). Code `KL_TERMINAL`.
 */
export class TerminalError extends KubeloopError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("KL_TERMINAL", message, options);
  }
}
