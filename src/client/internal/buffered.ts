/**
 * Requests whose answer is read whole (everything but watches), sent with undici's `dispatch`
 * and buffered by a handler of our own. undici's `request()` gives every answer a Readable body
 * stream and parses every header into an object; on an operator converging 1,000 objects that
 * was 7 % of its CPU (`npm run bench -- --profile`, 2026-11-25: undici's body stream 173 ms,
 * `request()` 53 ms, header parsing 54 ms, Node's Readable machinery most of another 100 ms, of
 * 4.7 s). Watches keep `request()`: their body is a stream for as long as they run.
 */
import { addAbortListener } from "node:events";
import type { Dispatcher } from "undici";
import { parseHeaders } from "./agent.ts";

/** What a response body offers: read it whole (`text`, `json`), skip it (`dump`), or iterate it. */
export interface ResponseBody extends AsyncIterable<Buffer> {
  text(): Promise<string>;
  json(): Promise<unknown>;
  /** Discards the body, releasing the connection. */
  dump(): Promise<void>;
  /** Ends the body early, with `error` for whoever is iterating it. */
  destroy(error?: Error): void;
}

/** A whole answer: status, headers with lower-case names, body. */
export interface BufferedResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body: ResponseBody;
}

/** A body already received in full. */
class BufferedBody implements ResponseBody {
  readonly #bytes: Buffer;

  constructor(bytes: Buffer) {
    this.#bytes = bytes;
  }

  async text(): Promise<string> {
    return this.#bytes.toString("utf8");
  }

  async json(): Promise<unknown> {
    return JSON.parse(this.#bytes.toString("utf8"));
  }

  async dump(): Promise<void> {}

  destroy(): void {}

  async *[Symbol.asyncIterator](): AsyncIterator<Buffer> {
    yield this.#bytes;
  }
}

/**
 * Sends `options` through `dispatcher` and resolves with the whole answer once it has arrived;
 * rejects with the dispatcher's error, or with `signal`'s reason once it aborts.
 */
export function sendBuffered(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  signal: AbortSignal | undefined,
): Promise<BufferedResponse> {
  return new Promise((resolve, reject) => {
    let status = 0;
    let headers: Record<string, string | string[]> = {};
    const chunks: Buffer[] = [];
    let abort: ((reason: Error) => void) | undefined;
    if (signal?.aborted) return reject(signal.reason);
    const listening = signal
      ? addAbortListener(signal, () => {
          reject(signal.reason);
          abort?.(signal.reason);
        })
      : undefined;
    const settle = () => listening?.[Symbol.dispose]();
    dispatcher.dispatch(options, {
      onConnect(abortRequest: (reason: Error) => void) {
        abort = abortRequest;
        if (signal?.aborted) abortRequest(signal.reason);
      },
      onHeaders(statusCode: number, rawHeaders: Buffer[]) {
        status = statusCode;
        headers = parseHeaders(rawHeaders);
        return true;
      },
      onData(chunk: Buffer) {
        chunks.push(chunk);
        return true;
      },
      onComplete() {
        settle();
        const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
        resolve({ status, headers, body: new BufferedBody(bytes) });
      },
      onError(error: Error) {
        settle();
        reject(error);
      },
    } as Dispatcher.DispatchHandler);
  });
}
