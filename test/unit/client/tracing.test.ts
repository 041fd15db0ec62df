/**
 * A traced client view: one client span per request, child of the span it was given, named by
 * verb and resource, with the status code; a refused or failed request marks its span failed.
 */
import assert from "node:assert/strict";
import { after, before, describe, it, type TestContext } from "node:test";
import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { ConfigMap, Deployment, Namespace } from "../../../src/api/index.ts";
import { Client } from "../../../src/client/index.ts";
import { resourceOfPath } from "../../../src/client/tracing.ts";
import { fakeConnection } from "./support.ts";
import { type StubAnswer, stubUndici } from "./undici-stub.ts";

// One provider for the file: kubeloop's tracer keeps the first provider it delegated to.
const exporter = new InMemorySpanExporter();
before(() => {
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
});
after(() => trace.disable());

/** A traced view of a client answered by `answer`, and the spans it finished. */
function tracedClient(t: TestContext, answer: () => StubAnswer) {
  exporter.reset();
  stubUndici(t, answer);
  const client = new Client(fakeConnection());
  t.after(() => client.close());
  const parent = trace.getTracer("test").startSpan("reconcile");
  return { client: client.traced(parent), parent, spans: () => exporter.getFinishedSpans() };
}

describe("traced client", () => {
  it("names a request's resource, with its subresource, for core and group paths", () => {
    assert.equal(resourceOfPath("/api/v1/namespaces/ns/configmaps/a"), "configmaps");
    assert.equal(resourceOfPath("/api/v1/namespaces/ns/configmaps"), "configmaps");
    assert.equal(resourceOfPath("/api/v1/namespaces/ns"), "namespaces");
    assert.equal(resourceOfPath("/api/v1/namespaces"), "namespaces");
    assert.equal(resourceOfPath("/apis/apps/v1/namespaces/ns/deployments/d/status"), "deployments/status");
    assert.equal(resourceOfPath("/apis/apps/v1/deployments"), "deployments");
    assert.equal(resourceOfPath("/api/v1/nodes/n1/status"), "nodes/status");
  });

  it("sends each request inside a client span under the given one", async (t) => {
    const { client, parent, spans } = tracedClient(t, () => ({ status: 200, body: {} }));
    await client.get(ConfigMap, "a", { namespace: "ns" });
    await client.status.get(Deployment, "d", { namespace: "ns" });
    await client.get(Namespace, "ns");
    const [get, status, ns] = spans();
    assert.equal(get?.name, "get configmaps");
    assert.equal(get?.kind, SpanKind.CLIENT);
    assert.equal(get?.parentSpanContext?.spanId, parent.spanContext().spanId);
    assert.deepEqual(get?.attributes, {
      "http.request.method": "GET",
      "url.path": "/api/v1/namespaces/ns/configmaps/a",
      "http.response.status_code": 200,
    });
    assert.equal(get?.status.code, SpanStatusCode.UNSET);
    assert.equal(status?.name, "get deployments/status");
    assert.equal(ns?.name, "get namespaces");
  });

  it("marks the span of a refused request failed, with its status code", async (t) => {
    const { client, spans } = tracedClient(t, () => ({
      status: 404,
      body: { kind: "Status", reason: "NotFound" },
    }));
    await assert.rejects(client.get(ConfigMap, "a", { namespace: "ns" }));
    const [span] = spans();
    assert.equal(span?.attributes["http.response.status_code"], 404);
    assert.equal(span?.status.code, SpanStatusCode.ERROR);
  });
});
