import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { authUsed, type SentResponse, Transport } from "../../../src/client/transport.ts";
import { FakeCredentials, fakeConnection, snapshot } from "./support.ts";
import { pathOf, queryOf, stubUndici } from "./undici-stub.ts";

describe("Transport.dispatch", () => {
  it("refuses every request once closed, for good (no pool is made again)", async (t) => {
    const sent = stubUndici(t, () => ({ status: 200 }));
    const transport = new Transport(fakeConnection());
    await transport.dispatch({ method: "GET", verb: "get", path: "/api" });
    await transport.close();
    await assert.rejects(transport.dispatch({ method: "GET", verb: "get", path: "/api" }), {
      name: "ClientClosedError",
      code: "KL_CLIENT_CLOSED",
      message:
        /was closed.*Fix: stop the watches, informers and managers that use a client before closing it/,
    });
    assert.equal(sent.length, 1);
  });

  it("sends to the server's origin under its path prefix, with the query string", async (t) => {
    const sent = stubUndici(t, () => ({ status: 200 }));
    const transport = new Transport(fakeConnection());
    await transport.dispatch({
      method: "GET",
      verb: "list",
      path: "/api/v1/configmaps",
      query: { labelSelector: "app=web", limit: 5, watch: true, continue: undefined },
    });
    const [request] = sent;
    assert.ok(request);
    assert.equal(request.origin, "https://apiserver.test:6443");
    assert.equal(pathOf(request), "/prefix/api/v1/configmaps");
    assert.deepEqual(queryOf(request), { labelSelector: "app=web", limit: "5", watch: "true" });
    assert.equal(request.method, "GET");
  });

  it("sends no query string when every parameter is undefined", async (t) => {
    const sent = stubUndici(t, () => ({ status: 200 }));
    await new Transport(fakeConnection()).dispatch({
      method: "GET",
      verb: "get",
      path: "/api",
      query: { a: undefined },
    });
    assert.equal(sent[0]?.path, "/prefix/api");
  });

  it("adds accept, user agent, credentials and the caller's headers", async (t) => {
    const sent = stubUndici(t, () => ({ status: 200 }));
    const transport = new Transport(fakeConnection(new FakeCredentials(snapshot("tok"))), {
      userAgent: "widgets/1.0",
    });
    await transport.dispatch({ method: "GET", verb: "get", path: "/api", headers: { accept: "text/plain" } });
    assert.deepEqual(sent[0]?.headers, {
      accept: "text/plain",
      "user-agent": "widgets/1.0",
      authorization: "Bearer tok",
    });
    assert.equal(sent[0]?.body, undefined);
  });

  it("sends objects as JSON and strings as they are, with a content type", async (t) => {
    const sent = stubUndici(t, () => ({ status: 201 }));
    const transport = new Transport(fakeConnection());
    await transport.dispatch({ method: "POST", verb: "create", path: "/x", body: { a: 1 } });
    await transport.dispatch({
      method: "PATCH",
      verb: "patch",
      path: "/x",
      body: "a: 1",
      contentType: "application/apply-patch+yaml",
    });
    assert.equal(sent[0]?.body, '{"a":1}');
    assert.equal(sent[0]?.headers["content-type"], "application/json");
    assert.equal(sent[0]?.headers["user-agent"], "kubeloop");
    assert.equal(sent[1]?.body, "a: 1");
    assert.equal(sent[1]?.headers["content-type"], "application/apply-patch+yaml");
  });

  it("times out headers and body by default, and only headers for streams", async (t) => {
    const sent = stubUndici(t, () => ({ status: 200 }));
    const transport = new Transport(fakeConnection(), { timeoutMs: 5_000 });
    await transport.dispatch({ method: "GET", verb: "get", path: "/a" });
    await transport.dispatch({ method: "GET", verb: "watch", path: "/b", stream: true, timeoutMs: 700 });
    await new Transport(fakeConnection()).dispatch({ method: "GET", verb: "get", path: "/c" });
    assert.deepEqual(
      sent.map((r) => [r.headersTimeout, r.bodyTimeout]),
      [
        [5_000, 5_000],
        [700, 0],
        [60_000, 60_000],
      ],
    );
  });

  it("returns the status, headers, body and the credentials used", async (t) => {
    stubUndici(t, () => ({ status: 418, headers: { "x-a": "b" }, body: "teapot" }));
    const credentials = new FakeCredentials(snapshot("tok"));
    const stop = new AbortController();
    const res: SentResponse = await new Transport(fakeConnection(credentials)).dispatch({
      method: "GET",
      verb: "get",
      path: "/a",
      signal: stop.signal,
    });
    assert.equal(res.status, 418);
    assert.deepEqual(res.headers, { "x-a": "b" });
    assert.equal(await res.body.text(), "teapot");
    assert.equal(res[authUsed], credentials.current);
  });

  it("keeps one pool per TLS identity and moves to a new one when the identity changes", async (t) => {
    const sent = stubUndici(t, () => ({ status: 200 }));
    const credentials = new FakeCredentials(snapshot("a", "identity-1"));
    const transport = new Transport(fakeConnection(credentials));
    const get = () => transport.dispatch({ method: "GET", verb: "get", path: "/a" });
    await get();
    await get();
    credentials.current = snapshot("b", "identity-1");
    await get();
    credentials.current = snapshot("c", "identity-2");
    await get();
    const [first, second, third, fourth] = sent.map((r) => r.agent);
    assert.equal(first, second);
    assert.equal(first, third, "a new token alone does not need a new connection");
    assert.notEqual(first, fourth);
    await transport.close();
  });
});
