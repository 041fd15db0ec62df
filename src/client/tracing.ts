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
  const segments = path.split("?")[0]?.split("/").filter(Boolean) ?? [];
  // /api/<version>/... or /apis/<group>/<version>/...; then namespaces/<name>/ when namespaced.
  let at = segments[0] === "api" ? 2 : 3;
  if (segments[at] === "namespaces" && segments.length > at + 2) at += 2;
  const [resource = "", , subresource] = segments.slice(at);
  return subresource ? `${resource}/${subresource}` : resource;
}

/**
 * Sends `request` with `send` inside a client span under `parent`, named by verb and resource
 * (`patch configmaps`), with the method, path and status code; an error ends it with status Error.
 */
export async function tracedRequest<T>(
  parent: Context,
  request: ApiRequest,
  send: () => Promise<T & { status: number }>,
): Promise<T & { status: number }> {
  const span = tracer.startSpan(
    `${request.verb} ${resourceOfPath(request.path)}`,
    {
      kind: SpanKind.CLIENT,
      attributes: { "http.request.method": request.method, "url.path": request.path },
    },
    parent,
  );
  try {
    const res = await send();
    span.setAttribute("http.response.status_code", res.status);
    if (res.status >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
    return res;
  } catch (err) {
    failedSpan(span, err);
    throw err;
  } finally {
    span.end();
  }
}

/** Records `err` on `span` and marks it failed (status Error); does not end it. */
export function failedSpan(span: Span, err: unknown): void {
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}
