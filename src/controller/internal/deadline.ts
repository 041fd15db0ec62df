/**
 * One reconcile's signal and client: they abort (and fence) when the controller stops at once,
 * and, with a timeout, when the reconcile runs past it, as controller-runtime's
 * `ReconciliationTimeout` gives each `Reconcile` a context with a deadline.
 */
import type { Client } from "../../client/index.ts";
import type { Clock } from "../../clock/index.ts";
import { ReconcileTimeoutError } from "../errors.ts";

/** What a controller's reconciles stop with: its hard stop, and its client fenced by it. */
export interface Stopping {
  readonly signal: AbortSignal;
  readonly client: Client;
}

/** One reconcile's {@link Stopping}, and its timeout. */
export interface ReconcileRun extends Stopping {
  /**
   * With a timeout: rejects with a {@link ReconcileTimeoutError} when the reconcile runs past it
   * (race it against the reconcile); never settles once {@link ReconcileRun.end} was called.
   * Absent without a timeout.
   */
  readonly timedOut?: Promise<never>;
  /** The reconcile is over: cancels the timer and unhooks from the hard stop; aborts nothing. */
  end(): void;
}

/**
 * The run of the reconcile of `key`: without a timeout (`timeoutMs` absent or not > 0), the
 * controller's own `stop`. With one, a signal of its own that aborts with `stop`, or with a
 * {@link ReconcileTimeoutError} after `timeoutMs` (then `onTimeout` is told), and a client fenced
 * by it: nothing the reconcile sends after its timeout goes out.
 */
export function startReconcile(
  stop: Stopping,
  key: string,
  timeoutMs: number | undefined,
  clock: Clock,
  onTimeout: (err: ReconcileTimeoutError) => void,
): ReconcileRun {
  if (!(timeoutMs !== undefined && timeoutMs > 0)) return { ...stop, end() {} };
  const own = new AbortController();
  const stopped = () => own.abort(stop.signal.reason);
  if (stop.signal.aborted) stopped();
  else stop.signal.addEventListener("abort", stopped, { once: true });
  let timer = { cancel() {} };
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = clock.setTimer(timeoutMs, () => {
      const err = new ReconcileTimeoutError(key, timeoutMs);
      own.abort(err);
      onTimeout(err);
      reject(err);
    });
  });
  return {
    signal: own.signal,
    client: stop.client.fenced(own.signal),
    timedOut,
    end() {
      timer.cancel();
      stop.signal.removeEventListener("abort", stopped);
    },
  };
}
