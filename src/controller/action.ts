import { KubeloopError } from "../errors/index.ts";
import { InvalidRequeueError } from "./errors.ts";
import { causes } from "./internal/causes.ts";

/**
 * What a successful reconcile asks for next. Return nothing (or {@link Action.awaitChange}) when
 * the object is converged and only a change should bring it back; return
 * {@link Action.requeueAfter} to look again after a delay (polling something outside the
 * cluster), or {@link Action.requeue} to look again soon, backing off while it keeps asking. A
 * failure is never an Action: throw, and the error policy decides the retry.
 */
export class Action {
  /** Milliseconds until the key is reconciled again, or undefined to wait for a change (or for {@link Action.rateLimited}). */
  readonly requeueAfterMs: number | undefined;
  /** True for {@link Action.requeue}: the key comes back after its rate-limited backoff. */
  readonly rateLimited: boolean;

  private constructor(requeueAfterMs: number | undefined, rateLimited = false) {
    this.requeueAfterMs = requeueAfterMs;
    this.rateLimited = rateLimited;
  }

  /**
   * Reconcile again after `ms` milliseconds (resets the key's failure backoff). Throws
   * {@link InvalidRequeueError} unless `ms` is a finite number >= 0.
   */
  static requeueAfter(ms: number): Action {
    if (!Number.isFinite(ms) || ms < 0) throw new InvalidRequeueError(ms);
    return new Action(ms);
  }

  /**
   * Reconcile again after the key's rate-limited backoff, as controller-runtime's
   * `Result{Requeue: true}`: the delay grows with each requeue in a row (5 ms doubling, within the
   * controller's overall 10 qps) until a reconcile returns something else. For waiting on
   * something that is not watched without an error to report. Counted as `requeue` in
   * `controller_runtime_reconcile_total{result}`.
   */
  static requeue(): Action {
    return new Action(undefined, true);
  }

  /** Converged: reconcile again only when a watched object changes (or on resync). */
  static awaitChange(): Action {
    return new Action(undefined);
  }
}

/**
 * A failure that retrying cannot fix (an invalid spec, a missing permission that needs a human).
 * The key is not retried; the error is still logged and counted
 * (`controller_runtime_terminal_reconcile_errors_total`). It is recognised where it is wrapped
 * too: as the `cause` of another error, among an `AggregateError`'s errors, or as any error
 * whose `code` is `KL_TERMINAL`. Like every failure, it is told on the object as a Warning event
 * (reason `ReconcileError`). Code `KL_TERMINAL`.
 */
export class TerminalError extends KubeloopError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("KL_TERMINAL", message, options);
  }
}

/**
 * True when `err` is or wraps a {@link TerminalError} (or an error with code `KL_TERMINAL`), as
 * controller-runtime's `errors.Is(err, reconcile.TerminalError(nil))`.
 */
export function isTerminal(err: unknown): boolean {
  return causes(err).some(
    (e) => e instanceof TerminalError || (e as { code?: unknown } | null)?.code === "KL_TERMINAL",
  );
}
