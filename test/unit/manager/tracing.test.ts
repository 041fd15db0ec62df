/** When the manager exports traces: the OTLP environment variables, as the OpenTelemetry specification reads them. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { trace } from "@opentelemetry/api";
import { pino } from "pino";
import { exportTraces, tracesRequested, tracesUrl } from "../../../src/manager/tracing.ts";

describe("trace export", () => {
  it("is asked for by an OTLP endpoint, unless the SDK or the traces exporter is disabled", () => {
    assert.equal(tracesRequested({}), false, "the default: no traces, nothing loaded");
    assert.equal(tracesRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }), true);
    assert.equal(tracesRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://c:4318/v1/traces" }), true);
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" };
    assert.equal(tracesRequested({ ...endpoint, OTEL_SDK_DISABLED: "TRUE" }), false);
    assert.equal(tracesRequested({ ...endpoint, OTEL_TRACES_EXPORTER: "none" }), false);
    assert.equal(tracesRequested({ ...endpoint, OTEL_TRACES_EXPORTER: "otlp" }), true);
  });

  it("sends to the traces endpoint as given, or to the base endpoint's /v1/traces", () => {
    assert.equal(
      tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" }),
      "http://collector:4318/v1/traces",
    );
    assert.equal(
      tracesUrl({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://b/t",
      }),
      "http://b/t",
    );
  });

  it("registers a tracer provider only when asked, and leaves a program's own provider in place", async (t) => {
    const logger = pino({ level: "silent" });
    assert.equal(await exportTraces("widgets", logger, {}), undefined);
    assert.equal(trace.getTracer("x").startSpan("s").isRecording(), false, "no provider registered");

    const started = await exportTraces("widgets", logger, {
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9",
    });
    t.after(async () => {
      trace.disable();
    });
    assert.ok(started, "the SDK (dev dependencies here) is loaded and registered");
    const span = trace.getTracer("x").startSpan("s");
    assert.equal(span.isRecording(), true);
    // Nothing is sent: the span is not ended, and the export is stopped before any batch is due.
    const again = await exportTraces("other", logger, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" });
    assert.equal(again, undefined, "a provider is registered already: it stays");
    await started.shutdown();
  });
});
