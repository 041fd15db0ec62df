/**
 * One OpenTelemetry span per reconcile, `reconcile <controller>`: its key, reconcile ID and
 * triggers, then its result, or its error (recorded, status Error). The reconcile's API calls are
 * its children (`Client.traced`). Made through the global `@opentelemetry/api` tracer provider:
 * with none registered (no `OTEL_EXPORTER_OTLP_ENDPOINT`, no SDK of the program's), or a sampler
 * that drops the trace, the span does not record and the reconcile goes on untraced: one no-op
 * span, nothing more (measured in `bench/tracing.ts`).
 */
import { type Span, trace } from "@opentelemetry/api";
import { failedSpan, TRACER_NAME } from "../../client/index.ts";
import type { QueueReason } from "../../queue/index.ts";
import type { ReconcileResult } from "../metrics.ts";

const tracer = trace.getTracer(TRACER_NAME);

/** A recording span for a reconcile of `key` by `controller`; undefined when tracing is off. */
export function startReconcileSpan(
  controller: string,
  key: string,
  reconcileID: string,
  triggers: readonly QueueReason[],
): Span | undefined {
  const span = tracer.startSpan(`reconcile ${controller}`);
  if (!span.isRecording()) return undefined;
  return span.setAttributes({
    "kubeloop.controller": controller,
    "kubeloop.key": key,
    "kubeloop.reconcile_id": reconcileID,
    "kubeloop.triggers": triggers.map((t) => t.reason),
  });
}

/** Ends a reconcile's span with its result, and its error when it failed. */
export function endReconcileSpan(span: Span, result: ReconcileResult, error?: unknown): void {
  span.setAttribute("kubeloop.result", result);
  if (result === "error") failedSpan(span, error);
  span.end();
}
