/**
 * Splits a watch response body (newline-delimited JSON) into parsed events, straight from the
 * raw Buffer chunks, holding back a partial line until its end arrives.
 */
import { StringDecoder } from "node:string_decoder";

/** One decoded line of a watch stream. */
export interface RawWatchEvent {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  object: Record<string, unknown> & {
    metadata?: { resourceVersion?: string; annotations?: Record<string, string> };
  };
}

/** Yields each JSON line of `chunks` as an object; `received` is told each chunk's size in bytes. */
export async function* decodeLines(
  chunks: AsyncIterable<Buffer | string>,
  received?: (bytes: number) => void,
): AsyncGenerator<RawWatchEvent> {
  const decoder = new StringDecoder("utf8");
  let pending = "";
  for await (const chunk of chunks) {
    received?.(chunk.length);
    pending += typeof chunk === "string" ? chunk : decoder.write(chunk);
    let newline = pending.indexOf("\n");
    while (newline >= 0) {
      const line = pending.slice(0, newline).trim();
      pending = pending.slice(newline + 1);
      if (line) yield JSON.parse(line) as RawWatchEvent;
      newline = pending.indexOf("\n");
    }
  }
  const rest = (pending + decoder.end()).trim();
  if (rest) yield JSON.parse(rest) as RawWatchEvent;
}
