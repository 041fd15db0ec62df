/**
 * `reconciliationTimeoutMs`, as controller-runtime's `ReconciliationTimeout`: a reconcile running
 * longer has its `ctx.signal` aborted and its client fenced, is counted
 * (`controller_runtime_reconcile_timeouts_total`), told by a Warning event, and retried with
 * backoff; its worker and its key are free at once, while whatever the abandoned promise still
 * sends through `ctx.client` never goes out. Off by default.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigMap } from "../../../src/api/index.ts";
import { Client, WriteFencedError } from "../../../src/client/index.ts";
import { ReconcileTimeoutError } from "../../../src/controller/index.ts";
import { hasCode } from "../../../src/errors/index.ts";
import { fakeConnection } from "../client/support.ts";
import { stubUndici } from "../client/undici-stub.ts";
import { cm, deferred, flush, harness } from "./support.ts";

/** A reconcile that never returns: a hung call to an external API, deaf to its signal. */
const never = () => new Promise<undefined>(() => {});

describe("Controller: reconciliationTimeoutMs", () => {
  it("aborts the signal of a reconcile that runs longer, counts it, tells it by a Warning event, and retries with backoff", async (t) => {
    const h = harness(t, (_call, i) => (i === 0 ? never() : undefined), { reconciliationTimeoutMs: 60_000 });
    h.store.writer.apply(cm("a"));
    void h.run();
    h.source.enqueue("ns/a", "watch:ConfigMap:create");
    await flush();
    const first = h.reconciles[0]?.ctx;
    await h.advance(59_999);
    assert.equal(first?.signal.aborted, false);
    await h.advance(1);
    assert.equal(first?.signal.aborted, true);
    const reason = first?.signal.reason;
    assert.ok(reason instanceof ReconcileTimeoutError);
    assert.ok(hasCode(reason, "KL_RECONCILE_TIMEOUT"));
    assert.match(reason.message, /reconcile of ns\/a ran longer than 60000 ms \(reconciliationTimeoutMs\)/);
    assert.ok(h.calls.includes("timed out"));
    assert.ok(h.calls.includes("failed retriable"));
    assert.deepEqual(
      h.events.callsOf("create").map((c) => [c.body.type, c.body.reason, c.body.note]),
      [["Warning", "ReconcileTimeout", reason.message]],
    );
    assert.equal(h.reconciles.length, 1, "retried after the backoff, not at once");
    await h.advance(5);
    assert.equal(h.reconciles.length, 2, "the key is free while the abandoned reconcile still runs");
    assert.equal(h.reconciles[1]?.ctx.signal.aborted, false, "the retry has a signal of its own");
    assert.equal(h.calls.filter((c) => c === "timed out").length, 1);
  });

  it("frees the worker: with one worker, other keys are reconciled after the timeout", async (t) => {
    const h = harness(t, (call) => (call.ctx.request.name === "hung" ? never() : undefined), {
      reconciliationTimeoutMs: 1_000,
    });
    void h.run();
    h.source.enqueue("ns/hung", "watch:ConfigMap:create");
    h.source.enqueue("ns/b", "watch:ConfigMap:create");
    await flush();
    assert.deepEqual(h.keys(), ["ns/hung"]);
    await h.advance(1_000);
    assert.deepEqual(h.keys(), ["ns/hung", "ns/b"]);
  });

  it("fences the client of a reconcile that ignores its aborted signal: nothing it sends after its timeout goes out", async (t) => {
    const sent = stubUndici(t, () => ({ status: 201, body: cm("x") }));
    const client = new Client(fakeConnection());
    const late = deferred();
    const outcome = deferred<unknown>();
    const h = harness(
      t,
      async ({ ctx }, i) => {
        if (i > 0) return undefined;
        await ctx.client.create(ConfigMap, cm("before"));
        await late.promise;
        await ctx.client.create(ConfigMap, cm("after")).then(outcome.resolve, outcome.resolve);
        return undefined;
      },
      { reconciliationTimeoutMs: 1_000 },
      { client },
    );
    void h.run();
    h.source.enqueue("ns/a", "watch:ConfigMap:create");
    for (let i = 0; i < 20 && sent.length === 0; i++) await flush();
    assert.equal(sent.length, 1, "a write before the timeout goes out");
    await h.advance(1_000);
    late.resolve();
    const refused = await outcome.promise;
    assert.ok(refused instanceof WriteFencedError);
    assert.ok(refused.cause instanceof ReconcileTimeoutError);
    assert.equal(sent.length, 1, "the write after the timeout never reached the apiserver");
    await client.create(ConfigMap, cm("other"));
    assert.equal(sent.length, 2, "the controller's client is not fenced");
  });

  it("adds no listener per reconcile to the controller's stop: twelve at once raise no Node warning", async (t) => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    t.after(() => process.off("warning", onWarning));
    const h = harness(t, () => never(), { reconciliationTimeoutMs: 60_000, concurrency: 12 });
    void h.run();
    for (let i = 0; i < 12; i++) h.source.enqueue(`ns/w${i}`, "watch:ConfigMap:create");
    await flush();
    await flush();
    assert.equal(h.reconciles.length, 12);
    h.controller.abort(new Error("leadership lost"));
    await flush();
    assert.ok(
      h.reconciles.every((r) => r.ctx.signal.aborted),
      "the hard stop aborts every run",
    );
    assert.deepEqual(
      warnings.map((w) => w.name),
      [],
    );
  });

  it("is off by default, as in controller-runtime: a reconcile may run for hours", async (t) => {
    const done = deferred<undefined>();
    const h = harness(t, () => done.promise);
    void h.run();
    h.source.enqueue("ns/a", "watch:ConfigMap:create");
    await flush();
    await h.advance(10 * 3600_000);
    assert.equal(h.reconciles[0]?.ctx.signal.aborted, false);
    done.resolve(undefined);
    await flush();
    assert.ok(h.calls.includes("reconciled success 36000"));
    assert.ok(!h.calls.includes("timed out"));
  });

  it("counts nothing for a reconcile that finished in time, and leaves no timer behind", async (t) => {
    const h = harness(t, () => undefined, { reconciliationTimeoutMs: 1_000 });
    void h.run();
    h.source.enqueue("ns/a", "watch:ConfigMap:create");
    await flush();
    assert.equal(h.reconciles.length, 1);
    assert.equal(h.clock.pending, 0);
    assert.equal(h.reconciles[0]?.ctx.signal.aborted, false);
    assert.ok(!h.calls.includes("timed out"));
  });
});
