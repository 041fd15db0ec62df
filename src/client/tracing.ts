/**
 * OpenTelemetry spans of API calls: a {@link Client.traced} view makes one client span per request
 * it sends, child of the span it was given (a reconcile's). Spans are made through the global
 * `@opentelemetry/api` tracer provider: none is registered unless the manager exports traces
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`) or the program registered its own, and the controller makes
 * traced views only for spans that record, so an untraced process pays nothing here.
 */
import { type Context, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { ApiRequest } from "./transport.ts";

/** The instrumentation scope kubeloop's spans are made under. */
export const TRACER_NAME = "kubeloop";

const tracer = trace.getTracer(TRACER_NAME);

/** The resource a request's path addresses, with its subresource: `configmaps`, `deployments/status`. */
export function resourceOfPath(path: string): string {
  // "/api/<version>/..." or "/apis/<group>/<version>/...", then "namespaces/<name>/" when
  // namespaced: one split, no intermediate arrays (it runs for every traced request).
  const segments = path.split("/");
  let at = segments[1] === "api" ? 3 : 4;
  if (segments[at] === "namespaces" && segments.length > at + 2) at += 2;
  const resource = segments[at] ?? "";
  const subresource = segments[at + 2];
  return subresource ? `${resource}/${subresource}` : resource;
}

/**
 * Starts the client span of `request` under `parent`, named by verb and resource (`patch
 * configmaps`), with its method and path; {@link endRequestSpan} ends it. Started and ended around
 * the dispatch itself, without a closure or an async layer of its own: it runs for every request
 * of a traced reconcile (`bench/tracing.ts`).
 */
export function startRequestSpan(parent: Context, request: ApiRequest): Span {
  return tracer.startSpan(
    `${request.verb} ${resourceOfPath(request.path)}`,
    {
      kind: SpanKind.CLIENT,
      attributes: { "http.request.method": request.method, "url.path": request.path },
    },
    parent,
  );
}

/** Ends a request's span with its status code (Error from 400 on), or with the error it failed with. */
export function endRequestSpan(span: Span, outcome: { status: number } | { error: unknown }): void {
  if ("error" in outcome) failedSpan(span, outcome.error);
  else {
    span.setAttribute("http.response.status_code", outcome.status);
    if (outcome.status >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/** Records `err` on `span` and marks it failed (status Error); does not end it. */
export function failedSpan(span: Span, err: unknown): void {
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}
