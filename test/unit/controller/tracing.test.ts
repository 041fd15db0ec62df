/**
 * OpenTelemetry: one span per reconcile (key, triggers, result, error) with a child span per API
 * call its client sent, collected here with the SDK's in-memory exporter; and no span at all
 * while no tracer provider is registered.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SpanStatusCode, trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { ConfigMap } from "../../../src/api/index.ts";
import { Client } from "../../../src/client/index.ts";
import { startReconcileSpan } from "../../../src/controller/internal/tracing.ts";
import { fakeConnection } from "../client/support.ts";
import { stubUndici } from "../client/undici-stub.ts";
import { cm, harness, until } from "./support.ts";

/** Reconciles of `ns/a` that read ConfigMap `a` (200) and then fail when `fail` says so. */
function reading(t: Parameters<typeof harness>[0], fail: (index: number) => boolean) {
  stubUndici(t, () => ({ status: 200, body: cm("a") }));
  const client = new Client(fakeConnection());
  t.after(() => client.close());
  return harness(
    t,
    async ({ ctx }, index) => {
      await ctx.client.get(ConfigMap, "a", { namespace: "ns" });
      if (fail(index)) throw new Error("boom");
      return undefined;
    },
    {},
    { client },
  );
}

describe("reconcile traces", () => {
  // First: the tracer kubeloop holds delegates to the provider once one is registered.
  it("makes no span while no tracer provider is registered: the reconcile runs untraced", () => {
    assert.equal(startReconcileSpan("widgets", "ns/a", "id", []), undefined);
  });

  it("makes a span per reconcile, its API calls as children, its error recorded", async (t) => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    trace.setGlobalTracerProvider(provider);
    t.after(() => trace.disable());

    const h = reading(t, (index) => index === 0);
    void h.run();
    h.source.enqueue("ns/a", "watch:ConfigMap:create");
    await until(() => h.reconciles.length === 1 && exporter.getFinishedSpans().length === 2);
    const [call, reconcile] = exporter.getFinishedSpans() as [ReadableSpan, ReadableSpan];
    assert.equal(reconcile.name, "reconcile widgets");
    assert.deepEqual(reconcile.attributes, {
      "kubeloop.controller": "widgets",
      "kubeloop.key": "ns/a",
      "kubeloop.reconcile_id": h.reconciles[0]?.ctx.reconcileID,
      "kubeloop.triggers": ["watch:ConfigMap:create"],
      "kubeloop.result": "error",
    });
    assert.equal(reconcile.status.code, SpanStatusCode.ERROR);
    assert.equal(reconcile.status.message, "boom");
    assert.equal(reconcile.events[0]?.name, "exception");

    assert.equal(call.name, "get configmaps");
    assert.equal(call.parentSpanContext?.spanId, reconcile.spanContext().spanId);
    assert.equal(call.spanContext().traceId, reconcile.spanContext().traceId);
    assert.equal(call.attributes["http.request.method"], "GET");
    assert.equal(call.attributes["url.path"], "/api/v1/namespaces/ns/configmaps/a");
    assert.equal(call.attributes["http.response.status_code"], 200);

    // Its retry: a new trace, a success.
    exporter.reset();
    await h.advance(60_000);
    await until(() => exporter.getFinishedSpans().length === 2);
    const retried = exporter.getFinishedSpans().find((s) => s.name === "reconcile widgets");
    assert.equal(retried?.attributes["kubeloop.result"], "success");
    assert.deepEqual(retried?.attributes["kubeloop.triggers"], ["retry"]);
    assert.equal(retried?.status.code, SpanStatusCode.UNSET);
  });
});
