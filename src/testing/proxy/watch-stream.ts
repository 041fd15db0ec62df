/**
 * Forwards one watch response event by event, applying the stream faults of the rules in place
 * at the moment each event arrives: silence, drop, duplicate, delay and a clean end. Events leave
 * in the order they came, each as soon as it is complete (and its delay, if any, has passed).
 * A stream whose body is not JSON (e.g. protobuf) is forwarded chunk by chunk, untouched.
 */
import type { Clock } from "../../clock/index.ts";
import type { Rule } from "./rules.ts";
import { eventType, LineSplitter, selectsEvent } from "./watch-events.ts";

/** Where a watch stream's bytes go: the client's response. */
export interface StreamSink {
  /** Writes bytes; false means wait for {@link StreamSink.drained} before writing more. */
  write(data: Buffer): boolean;
  drained(): Promise<void>;
  /** Ends the response cleanly. */
  end(): void;
  /** Drops the client's connection. */
  destroy(): void;
}

/** What happened to the events of one watch stream. */
export interface WatchEventStats {
  /** Events that arrived from the apiserver. */
  received: number;
  /** Events sent to the client, duplicates included. */
  forwarded: number;
  /** Events withheld by `dropEvents`. */
  dropped: number;
  /** Extra copies sent by `duplicateEvents`. */
  duplicated: number;
  /** Events lost while the stream was silenced. */
  silenced: number;
}

/** What a {@link WatchStream} needs. */
export interface WatchStreamOptions {
  /** The stream-fault rules that apply to this stream right now. */
  rules: () => readonly Rule[];
  clock: Clock;
  sink: StreamSink;
  /** Updated as events pass. */
  stats: WatchEventStats;
  /** False for a non-JSON stream: forward it untouched. */
  json: boolean;
  /** Stops reading from the apiserver. */
  stopUpstream: () => void;
  /** Aborts pending event delays (the client went away or the proxy stopped). */
  signal: AbortSignal;
}

const maxQueued = 256;

interface RuleCounters {
  drop: number;
  duplicate: number;
  forwarded: number;
}

/** One watch response in flight. */
export class WatchStream {
  readonly #opts: WatchStreamOptions;
  readonly #counters = new Map<Rule, RuleCounters>();
  #tail: Promise<void> = Promise.resolve();
  #queued = 0;
  #lastDeliveryAt = 0;
  #closed = false;
  #destroyed = false;

  constructor(opts: WatchStreamOptions) {
    this.#opts = opts;
  }

  /** True once the stream was ended or reset. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Reads the apiserver's body to its end, forwarding events; resolves when reading stops. */
  async pump(source: AsyncIterable<Uint8Array>): Promise<void> {
    const splitter = new LineSplitter();
    try {
      this.checkEnd();
      for await (const chunk of source) {
        if (this.#closed) break;
        const pieces = this.#opts.json ? splitter.push(chunk) : [Buffer.from(chunk)];
        for (const piece of pieces) if (!this.#closed) this.#onEvent(piece);
        if (this.#queued > maxQueued) await this.#tail;
      }
      const rest = splitter.rest();
      if (rest && !this.#closed) this.#enqueue(rest, 0);
      this.end();
    } catch {
      if (!this.#closed) this.reset();
    }
  }

  /** Ends the stream cleanly once the events already on their way are out. */
  end(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#opts.stopUpstream();
    this.#tail = this.#tail.then(() => {
      if (!this.#destroyed) this.#opts.sink.end();
    });
  }

  /** Drops the client's connection at once. */
  reset(): void {
    if (this.#destroyed) return;
    this.#closed = true;
    this.#destroyed = true;
    this.#opts.stopUpstream();
    this.#opts.sink.destroy();
  }

  /** Ends the stream when an `endStream` rule has seen enough events; called when rules change. */
  checkEnd(): void {
    for (const rule of this.#opts.rules()) {
      const end = rule.fault.endStream;
      if (end === undefined || this.#closed) continue;
      const after = end === true ? 0 : end.afterEvents;
      if (this.#countersFor(rule).forwarded >= after) this.end();
    }
  }

  #onEvent(line: Buffer): void {
    const { stats } = this.#opts;
    stats.received++;
    if (!this.#opts.json) {
      this.#enqueue(line, 0);
      return;
    }
    const rules = this.#opts.rules();
    if (rules.some((r) => r.fault.silence)) {
      stats.silenced++;
      return;
    }
    const type = eventType(line);
    const picks = (rule: Rule, field: "dropEvents" | "duplicateEvents", counter: "drop" | "duplicate") => {
      const selector = rule.fault[field];
      return selector !== undefined && selectsEvent(selector, type, () => ++this.#countersFor(rule)[counter]);
    };
    if (rules.some((r) => picks(r, "dropEvents", "drop"))) {
      stats.dropped++;
      return;
    }
    const copies = rules.some((r) => picks(r, "duplicateEvents", "duplicate")) ? 2 : 1;
    const delay = rules.reduce((sum, r) => sum + (r.fault.delayEventsMs ?? 0), 0);
    for (let i = 0; i < copies; i++) this.#enqueue(line, delay);
    stats.forwarded += copies;
    stats.duplicated += copies - 1;
    for (const rule of rules) this.#countersFor(rule).forwarded++;
    this.checkEnd();
  }

  #countersFor(rule: Rule): RuleCounters {
    let counters = this.#counters.get(rule);
    if (!counters) {
      counters = { drop: 0, duplicate: 0, forwarded: 0 };
      this.#counters.set(rule, counters);
    }
    return counters;
  }

  #enqueue(data: Buffer, delayMs: number): void {
    const at = Math.max(this.#opts.clock.now() + delayMs, this.#lastDeliveryAt);
    this.#lastDeliveryAt = at;
    this.#queued++;
    this.#tail = this.#tail.then(() => this.#deliver(data, at));
  }

  async #deliver(data: Buffer, at: number): Promise<void> {
    try {
      const wait = at - this.#opts.clock.now();
      if (wait > 0) await this.#opts.clock.sleep(wait, this.#opts.signal);
      if (this.#destroyed) return;
      if (!this.#opts.sink.write(data)) await this.#opts.sink.drained();
    } catch {
      this.reset();
    } finally {
      this.#queued--;
    }
  }
}
