/**
 * What one held shard's work writes through: its reconciles' and leader-only runnables' clients
 * and an event recorder of its own, all behind one fence. The fence goes up the moment the shard
 * is lost; given up, once the events recorded meanwhile were written (the Lease is still renewed
 * then), right before its Lease is released. So a reconcile of a released shard — one that
 * outlived its drain, or one aborted at the loss — writes nothing, events included.
 */
import type { Client } from "../client/index.ts";
import { EventRecorder, type EventRecorderOptions } from "../events/index.ts";

/** How long a shard given up may take to write the events it recorded. */
const eventFlushMs = 5_000;

/** The writes of one held shard, behind its fence. */
export class ShardWrites {
  /** Records the shard's events, through its fence. */
  readonly recorder: EventRecorder;
  readonly #fence = new AbortController();
  #lost = false;

  /** A fence over `client` for the shard's events; its other clients come from {@link fenced}. */
  constructor(client: Client, recorder: EventRecorderOptions) {
    this.recorder = new EventRecorder(client.fenced(this.#fence.signal), recorder);
  }

  /** `client`, refusing every write once the fence is up. */
  fenced(client: Client): Client {
    return client.fenced(this.#fence.signal);
  }

  /** Whether the shard was lost. */
  get lost(): boolean {
    return this.#lost;
  }

  /** The shard is lost: the fence goes up now; the events not yet written, and any recorded later, are dropped. */
  lose(reason: unknown): void {
    this.#lost = true;
    this.#fence.abort(reason);
    void this.recorder.close(AbortSignal.abort(reason));
  }

  /**
   * The shard's work ended and its Lease is released next: writes the events recorded (unless it
   * was lost), then puts the fence up with `reason`.
   */
  async release(reason: unknown): Promise<void> {
    if (!this.#lost) await this.recorder.close(AbortSignal.timeout(eventFlushMs));
    this.#fence.abort(reason);
  }
}
