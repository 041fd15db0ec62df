/** When the manager exports traces: the OTLP environment variables, as the OpenTelemetry specification reads them. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { trace } from "@opentelemetry/api";
import type { SpanExporter } from "@opentelemetry/sdk-trace-base";
import { pino } from "pino";
import {
  EXPORT_FAILURE_LOG_INTERVAL_MS,
  exportTraces,
  tracesRequested,
  tracesUrl,
  withFailuresLogged,
} from "../../../src/manager/tracing.ts";

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

  it("logs a batch the exporter fails to send, at most once a minute, and passes every result on", () => {
    const lines: { msg?: string; spans?: number }[] = [];
    const logger = pino({ level: "warn" }, { write: (line: string) => lines.push(JSON.parse(line)) });
    let code = 1;
    const failing: SpanExporter = {
      export: (_spans, done) => done({ code, error: new Error("connect ECONNREFUSED") }),
      shutdown: async () => {},
    };
    let clock = 0;
    const exporter = withFailuresLogged(failing, logger, () => clock);
    const results: number[] = [];
    const send = () => exporter.export([], (r) => results.push(r.code));
    send();
    clock += 1_000;
    send();
    assert.equal(lines.length, 1, "one line for failures within the minute");
    assert.match(lines[0]?.msg ?? "", /could not export traces over OTLP/);
    clock += EXPORT_FAILURE_LOG_INTERVAL_MS;
    send();
    code = 0;
    clock += EXPORT_FAILURE_LOG_INTERVAL_MS;
    send();
    assert.equal(lines.length, 2, "again after a minute; nothing for a success");
    assert.deepEqual(results, [1, 1, 1, 0]);
  });
});
