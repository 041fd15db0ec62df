/** `Client.fenced`: a view whose writes are refused, before they are sent, once its fence is up. */
import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import { ConfigMap, type ConfigMapObject } from "../../../src/api/index.ts";
import { Client, type RequestObservation, WriteFencedError } from "../../../src/client/index.ts";
import { FakeClock } from "../../../src/clock/index.ts";
import { fakeConnection, flush } from "./support.ts";
import { stubUndici } from "./undici-stub.ts";

const cm: ConfigMapObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", namespace: "ns" } };

function fencedClient(t: TestContext, options: { qps?: number; burst?: number } = {}) {
  const sent = stubUndici(t, () => ({ status: 200, body: cm }));
  const observed: RequestObservation[] = [];
  const clock = new FakeClock();
  const client = new Client(fakeConnection(), {
    clock,
    metrics: { request: (o) => observed.push(o) },
    ...options,
  });
  const fence = new AbortController();
  return { client, view: client.fenced(fence.signal), fence, sent, observed, clock };
}

const lost = new Error("lost leadership of Lease ns/widgets");

function isFenced(err: unknown): boolean {
  return (
    err instanceof WriteFencedError &&
    err.code === "KL_WRITE_FENCED" &&
    err.cause === lost &&
    /PATCH \/api\/v1\/namespaces\/ns\/configmaps\/a was not sent.*lost leadership/.test(err.message)
  );
}

describe("Client.fenced", () => {
  it("writes until the fence is up, then refuses every write without sending it; reads go on", async (t) => {
    const { client, view, fence, sent, observed } = fencedClient(t);
    await view.patch(ConfigMap, "a", { data: {} }, { type: "merge", namespace: "ns" });
    assert.equal(sent.length, 1);
    fence.abort(lost);
    await assert.rejects(
      view.patch(ConfigMap, "a", { data: {} }, { type: "merge", namespace: "ns" }),
      isFenced,
    );
    await assert.rejects(view.apply(ConfigMap, cm, { force: true }), WriteFencedError);
    await assert.rejects(view.create(ConfigMap, cm), WriteFencedError);
    await assert.rejects(view.update(ConfigMap, cm), WriteFencedError);
    await assert.rejects(view.delete(ConfigMap, "a", { namespace: "ns" }), WriteFencedError);
    await assert.rejects(view.status.update(ConfigMap, cm), WriteFencedError);
    assert.equal(sent.length, 1, "no refused write reached the transport");
    assert.equal(observed.length, 1, "a refused write is no request in the metrics");
    await view.get(ConfigMap, "a", { namespace: "ns" });
    await view.list(ConfigMap, { namespace: "ns" });
    await client.create(ConfigMap, cm);
    assert.deepEqual(
      sent.slice(1).map((r) => r.method),
      ["GET", "GET", "POST"],
      "reads through the view and writes through the unfenced client are sent",
    );
  });

  it("refuses a write that was waiting for the rate limiter when the fence went up", async (t) => {
    const { view, fence, sent, clock } = fencedClient(t, { qps: 1, burst: 1 });
    await view.get(ConfigMap, "a", { namespace: "ns" });
    const waiting = view.create(ConfigMap, cm);
    await flush();
    assert.equal(sent.length, 1, "the create waits for a token");
    fence.abort(lost);
    clock.advance(1_000);
    await assert.rejects(waiting, WriteFencedError);
    assert.equal(sent.length, 1);
  });

  it("adds to the view's fence when fenced again: a write goes out only while no fence of the chain is up", async (t) => {
    const { view, fence, sent } = fencedClient(t);
    const own = new AbortController();
    const refenced = view.fenced(own.signal);
    await refenced.create(ConfigMap, cm);
    assert.equal(sent.length, 1);
    fence.abort(lost);
    await assert.rejects(
      refenced.patch(ConfigMap, "a", { data: {} }, { type: "merge", namespace: "ns" }),
      isFenced,
      "the outer fence still holds through the re-fenced view",
    );
    const { view: outer, sent: sentToo } = fencedClient(t);
    const inner = new AbortController();
    const other = outer.fenced(inner.signal);
    inner.abort(new Error("reconcile timed out"));
    await assert.rejects(other.create(ConfigMap, cm), /reconcile timed out/);
    await outer.create(ConfigMap, cm);
    assert.equal(sent.length, 1);
    assert.equal(sentToo.length, 1, "the inner fence holds only for the view that added it");
  });

  it("shares the client's rate limit and discovery", async (t) => {
    const { client, view, sent, clock } = fencedClient(t, { qps: 1, burst: 1 });
    assert.equal(view.discovery, client.discovery);
    await client.get(ConfigMap, "a", { namespace: "ns" });
    const next = view.get(ConfigMap, "a", { namespace: "ns" });
    await flush();
    assert.equal(sent.length, 1, "the view waits for the token the client spent");
    clock.advance(1_000);
    await next;
    assert.equal(sent.length, 2);
  });
});

describe("Client.limited", () => {
  it("has a rate limit of its own: its calls never wait for the client's tokens, nor the client's for its", async (t) => {
    const { client, view, fence, sent, clock } = fencedClient(t, { qps: 1, burst: 1 });
    const leases = view.limited(1, 1);
    await client.get(ConfigMap, "a", { namespace: "ns" });
    const waiting = client.get(ConfigMap, "a", { namespace: "ns" });
    await leases.get(ConfigMap, "a", { namespace: "ns" });
    await flush();
    assert.equal(sent.length, 2, "the limited view went ahead of the client's waiting call");
    assert.equal(leases.discovery, client.discovery);
    fence.abort(lost);
    const refused = assert.rejects(
      leases.create(ConfigMap, cm),
      WriteFencedError,
      "it keeps the view's fence",
    );
    clock.advance(1_000);
    await Promise.all([waiting, refused]);
    assert.equal(sent.length, 3);
  });
});
