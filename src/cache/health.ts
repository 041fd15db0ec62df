/** The health bookkeeping of one informer: its lifecycle, its failures and its restarts. */
import type { Clock } from "../clock/index.ts";

/** What an informer is doing, as {@link InformerHealth.state} reports it. */
export type InformerState = "pending" | "syncing" | "synced" | "failing" | "stopped";

/** An informer's health, for `/healthz` and `/readyz`. */
export interface InformerHealth {
  /** `apiVersion/kind` watched. */
  readonly kind: string;
  /**
   * `pending` until started; `syncing` until the first list is stored; `synced` while watching;
   * `failing` from a failed list or watch (retried with backoff) or a crash of the informer's
   * loop (restarted with backoff) until something arrives again; `stopped` once its signal aborted.
   */
  readonly state: InformerState;
  /** True once the first list was stored; it stays true while failing (the store is stale, not empty). */
  readonly synced: boolean;
  /** Monotonic milliseconds since the informer began failing, without a success since; 0 unless `failing`. */
  readonly failingForMs: number;
  /** The most recent failure, kept after the informer recovers; undefined when there was none. */
  readonly lastError: unknown;
  /** How many times the informer's loop died unexpectedly and was restarted. */
  readonly restarts: number;
}

/** Tracks the transitions an informer reports, and answers {@link InformerHealth}. */
export class HealthTracker {
  readonly #kind: string;
  readonly #clock: Clock;
  #started = false;
  #stopped = false;
  #failingSince: number | undefined;
  #lastError: unknown;
  #restarts = 0;

  constructor(kind: string, clock: Clock) {
    this.#kind = kind;
    this.#clock = clock;
  }

  /** The most recent failure, if any. */
  get lastError(): unknown {
    return this.#lastError;
  }

  started(): void {
    this.#started = true;
  }

  stopped(): void {
    this.#stopped = true;
  }

  /** A list, watch or the loop itself failed; `crashed` counts a restart. */
  failed(error: unknown, crashed = false): void {
    this.#lastError = error;
    this.#failingSince ??= this.#clock.monotonicMs();
    if (crashed) this.#restarts++;
  }

  /** Something arrived from the apiserver: whatever failed works again. */
  recovered(): void {
    this.#failingSince = undefined;
  }

  /** The informer's health now. */
  snapshot(synced: boolean): InformerHealth {
    const failing = this.#failingSince !== undefined;
    return {
      kind: this.#kind,
      state: this.#state(synced, failing),
      synced,
      failingForMs: failing ? this.#clock.monotonicMs() - (this.#failingSince ?? 0) : 0,
      lastError: this.#lastError,
      restarts: this.#restarts,
    };
  }

  #state(synced: boolean, failing: boolean): InformerState {
    if (this.#stopped) return "stopped";
    if (!this.#started) return "pending";
    if (failing) return "failing";
    return synced ? "synced" : "syncing";
  }
}
