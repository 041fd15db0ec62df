/**
 * Each reconcile's signal and client: they abort (and fence) when the controller stops at once,
 * and, with a timeout, when the reconcile runs past it, as controller-runtime's
 * `ReconciliationTimeout` gives each `Reconcile` a context with a deadline.
 */
import type { Client } from "../../client/index.ts";
import type { Clock } from "../../clock/index.ts";
import { ReconcileTimeoutError } from "../errors.ts";

/** One reconcile's signal, its client fenced by it, and its timeout. */
export interface ReconcileRun {
  readonly signal: AbortSignal;
  readonly client: Client;
  /**
   * With a timeout: rejects with a {@link ReconcileTimeoutError} when the reconcile runs past it
   * (race it against the reconcile); never settles once {@link ReconcileRun.end} was called.
   * Absent without a timeout.
   */
  readonly timedOut?: Promise<never>;
  /** The reconcile is over: cancels the timer and forgets the run; aborts nothing. */
  end(): void;
}

/**
 * What a controller's reconciles stop with: its hard stop (`signal`) and its client fenced by it,
 * and with a timeout a signal of their own that the hard stop aborts too. One listener on the hard
 * stop serves every run, so that many reconciles at once add no listener each (Node warns past 10).
 */
export class Stopping {
  readonly signal: AbortSignal;
  readonly client: Client;
  readonly #running = new Set<AbortController>();

  constructor(signal: AbortSignal, client: Client) {
    this.signal = signal;
    this.client = client;
    signal.addEventListener("abort", () => {
      for (const own of this.#running) own.abort(signal.reason);
    });
  }

  /**
   * The run of the reconcile of `key`: without a timeout (`timeoutMs` absent or not > 0), the hard
   * stop and its client. With one, a signal of its own that aborts with the hard stop, or with a
   * {@link ReconcileTimeoutError} after `timeoutMs` (then `onTimeout` is told), and a client fenced
   * by it: nothing the reconcile sends after its timeout goes out.
   */
  start(
    key: string,
    timeoutMs: number | undefined,
    clock: Clock,
    onTimeout: (err: ReconcileTimeoutError) => void,
  ): ReconcileRun {
    const { signal, client } = this;
    if (!(timeoutMs !== undefined && timeoutMs > 0)) return { signal, client, end() {} };
    const own = new AbortController();
    if (signal.aborted) own.abort(signal.reason);
    else this.#running.add(own);
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
      client: client.fenced(own.signal),
      timedOut,
      end: () => {
        timer.cancel();
        this.#running.delete(own);
      },
    };
  }
}
