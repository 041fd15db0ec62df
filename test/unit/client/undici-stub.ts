/**
 * `Client` builds its transport on undici agents and offers no seam to inject a `Dispatch`, so
 * these helpers stub the two ways it sends through an agent for one test — `dispatch` with a
 * handler (answers read whole) and `request` (watch streams) — answering in memory, so nothing
 * touches the network.
 */
import type { TestContext } from "node:test";
import { Agent, type Dispatcher } from "undici";
import { fakeBody } from "./support.ts";

/** What the transport handed to undici. */
export interface SentRequest {
  origin: string;
  path: string;
  method: string;
  headers: Record<string, string | string[]>;
  body?: string;
  signal?: AbortSignal;
  headersTimeout: number;
  bodyTimeout: number;
  /** The agent (connection pool) the request went through. */
  agent: Agent;
}

/** An answer of the stub: status, JSON (or text) body, headers. */
export interface StubAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string | string[]>;
}

/** Answers every undici request of this test with `answer`, recording what was sent. */
export function stubUndici(
  t: TestContext,
  answer: (request: SentRequest, index: number) => StubAnswer | Promise<StubAnswer>,
): SentRequest[] {
  const sent: SentRequest[] = [];
  const answerTo = (agent: Agent, options: Omit<SentRequest, "agent">) => {
    const request = { ...options, agent };
    sent.push(request);
    return Promise.resolve(answer(request, sent.length - 1));
  };
  t.mock.method(
    Agent.prototype,
    "request",
    async function (this: Agent, options: Omit<SentRequest, "agent">) {
      const { status, body = "", headers = {} } = await answerTo(this, options);
      return { statusCode: status, headers, body: fakeBody(body) };
    },
  );
  t.mock.method(
    Agent.prototype,
    "dispatch",
    function (this: Agent, options: Omit<SentRequest, "agent">, handler: Dispatcher.DispatchHandler) {
      answerTo(this, options).then(
        ({ status, body = "", headers = {} }) => {
          handler.onConnect?.(() => {});
          const raw = Object.entries(headers).flatMap(([name, values]) =>
            [values].flat().flatMap((value) => [Buffer.from(name), Buffer.from(value)]),
          );
          handler.onHeaders?.(status, raw, () => {}, "");
          handler.onData?.(Buffer.from(typeof body === "string" ? body : JSON.stringify(body)));
          handler.onComplete?.([]);
        },
        (error: Error) => handler.onError?.(error),
      );
      return true;
    },
  );
  return sent;
}

/** The query parameters of a sent path. */
export function queryOf(request: SentRequest): Record<string, string> {
  return Object.fromEntries(new URL(request.path, "https://x").searchParams);
}

/** The path of a sent request without its query string. */
export function pathOf(request: SentRequest): string {
  return request.path.split("?")[0] ?? "";
}
