/**
 * `sendBuffered` against a real HTTP server on localhost: the whole answer with its headers,
 * aborts through the signal before and while a request is in flight, undici's timeouts, and no
 * listener left on the signal afterwards.
 */
import assert from "node:assert/strict";
import { getEventListeners, once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it, type TestContext } from "node:test";
import { Agent } from "undici";
import { sendBuffered } from "../../../src/client/internal/buffered.ts";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function serve(
  t: TestContext,
  handler: Handler,
): Promise<{ agent: Agent; origin: string; requests: () => number }> {
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    handler(req, res);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const agent = new Agent();
  t.after(async () => {
    await agent.close();
    server.closeAllConnections();
    server.close();
  });
  const { port } = server.address() as AddressInfo;
  return { agent, origin: `http://127.0.0.1:${port}`, requests: () => requests };
}

describe("sendBuffered", () => {
  it("resolves with the status, lower-cased headers (repeated ones as arrays) and the whole body", async (t) => {
    const { agent, origin } = await serve(t, (_req, res) => {
      res.writeHead(207, [
        ["Content-Type", "application/json"],
        ["Warning", '299 - "one"'],
        ["Warning", '299 - "two"'],
      ]);
      res.write('{"items":[1,');
      setTimeout(() => res.end("2]}"), 20);
    });
    const answer = await sendBuffered(agent, { origin, path: "/x", method: "GET" }, undefined);
    assert.equal(answer.status, 207);
    assert.equal(answer.headers["content-type"], "application/json");
    assert.deepEqual(answer.headers.warning, ['299 - "one"', '299 - "two"']);
    assert.deepEqual(await answer.body.json(), { items: [1, 2] });
    assert.equal(await answer.body.text(), '{"items":[1,2]}');
    const chunks: Buffer[] = [];
    for await (const chunk of answer.body) chunks.push(chunk);
    assert.equal(Buffer.concat(chunks).toString(), '{"items":[1,2]}');
  });

  it("rejects with the signal's reason when it aborts while the answer is pending, and drops the request", async (t) => {
    let closed = false;
    const { agent, origin } = await serve(t, (req) => req.socket.once("close", () => (closed = true)));
    const stop = new AbortController();
    const sending = sendBuffered(agent, { origin, path: "/slow", method: "GET" }, stop.signal);
    setTimeout(() => stop.abort(new Error("stopped")), 50);
    await assert.rejects(sending, /stopped/);
    const deadline = Date.now() + 5000;
    while (!closed && Date.now() < deadline) await new Promise((r) => setImmediate(r));
    assert.equal(closed, true, "the connection of the aborted request is closed");
  });

  it("rejects at once, sending nothing, when the signal has already aborted", async (t) => {
    const { agent, origin, requests } = await serve(t, (_req, res) => res.end("{}"));
    const stop = new AbortController();
    stop.abort(new Error("too late"));
    await assert.rejects(sendBuffered(agent, { origin, path: "/", method: "GET" }, stop.signal), /too late/);
    assert.equal(requests(), 0);
  });

  it("surfaces undici's headers timeout", async (t) => {
    const { agent, origin } = await serve(t, () => {});
    await assert.rejects(
      sendBuffered(agent, { origin, path: "/", method: "GET", headersTimeout: 50 }, undefined),
      (error: Error & { code?: string }) => error.code === "UND_ERR_HEADERS_TIMEOUT",
    );
  });

  it("leaves no listener on the signal once the answer is in", async (t) => {
    const { agent, origin } = await serve(t, (_req, res) => res.end("{}"));
    const shared = new AbortController();
    const answers = await Promise.all(
      [1, 2, 3].map((i) => sendBuffered(agent, { origin, path: `/${i}`, method: "GET" }, shared.signal)),
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 200],
    );
    assert.equal(getEventListeners(shared.signal, "abort").length, 0);
  });
});
