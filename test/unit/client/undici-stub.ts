/**
 * `Client` builds its transport on undici agents and offers no seam to inject a `Dispatch`, so
 * these helpers stub undici's `Dispatcher.prototype.request` (which every agent inherits) for one
 * test: requests are answered in memory and nothing touches the network.
 */
import type { TestContext } from "node:test";
import { Agent } from "undici";
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
  t.mock.method(
    Agent.prototype,
    "request",
    async function (this: Agent, options: Omit<SentRequest, "agent">) {
      const request = { ...options, agent: this };
      sent.push(request);
      const { status, body = "", headers = {} } = await answer(request, sent.length - 1);
      return { statusCode: status, headers, body: fakeBody(body) };
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
