/**
 * The framing of a JSON watch stream: newline-delimited `{"type": ..., "object": ...}` events.
 * Splits arriving chunks into whole events, reads an event's type, and decides whether an
 * {@link EventSelector} picks an event.
 */
import { type EventSelector, isEverySelector, type WatchEventType } from "./fault.ts";

const newline = 0x0a;

/** Cuts a byte stream into lines, each ending with its `\n`; a partial line waits for its remainder. */
export class LineSplitter {
  #pending: Buffer[] = [];

  /** Feeds a chunk and returns the lines it completes. */
  push(chunk: Uint8Array): Buffer[] {
    const lines: Buffer[] = [];
    let buffer = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    for (let end = buffer.indexOf(newline); end !== -1; end = buffer.indexOf(newline)) {
      lines.push(Buffer.concat([...this.#pending, buffer.subarray(0, end + 1)]));
      this.#pending = [];
      buffer = buffer.subarray(end + 1);
    }
    if (buffer.length > 0) this.#pending.push(Buffer.from(buffer));
    return lines;
  }

  /** What is left after the last newline, if anything (a stream that ended without one). */
  rest(): Buffer | undefined {
    const rest = Buffer.concat(this.#pending);
    this.#pending = [];
    return rest.length > 0 ? rest : undefined;
  }
}

const typePrefix = /^\s*\{\s*"type"\s*:\s*"([A-Z]+)"/;
const knownTypes = new Set<string>(["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"]);

/** The `type` of one event line, or `undefined` when the line is not a watch event. */
export function eventType(line: Buffer): WatchEventType | undefined {
  const head = typePrefix.exec(line.subarray(0, 64).toString("utf8"))?.[1];
  const type = head ?? parsedType(line);
  return type !== undefined && knownTypes.has(type) ? (type as WatchEventType) : undefined;
}

function parsedType(line: Buffer): string | undefined {
  try {
    const value = JSON.parse(line.toString("utf8")) as { type?: unknown };
    return typeof value.type === "string" ? value.type : undefined;
  } catch {
    return undefined;
  }
}

/**
 * True when `selector` picks an event of `type`. For `{ every }`, `count` is called once per
 * candidate event and must return how many candidates this stream has seen so far, this one included.
 */
export function selectsEvent(
  selector: EventSelector,
  type: WatchEventType | undefined,
  count: () => number,
): boolean {
  if (selector === "all") return true;
  if (typeof selector === "string") return type === selector;
  if (!isEverySelector(selector)) return type !== undefined && selector.includes(type);
  if (selector.types && (type === undefined || !selector.types.includes(type))) return false;
  return count() % selector.every === 0;
}
