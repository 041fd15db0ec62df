/**
 * Exporting traces: when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is
 * set, {@link runManager} registers an OpenTelemetry tracer provider that batches the spans of
 * reconciles and their API calls and sends them over OTLP/HTTP, named by `OTEL_SERVICE_NAME` or
 * else the operator's name (the exporter reads the other `OTEL_EXPORTER_OTLP_*` variables itself).
 * Not set, or `OTEL_SDK_DISABLED=true`, or `OTEL_TRACES_EXPORTER=none`: nothing is loaded, and no
 * span records. A program that registered its own provider (e.g. `@opentelemetry/sdk-node`) keeps
 * it, and gets the spans.
 *
 * The SDK and the exporter are optional peer dependencies, imported only then: an operator that
 * does not export traces does not install them (the exporter pulls in protobufjs and the metrics
 * and logs SDKs).
 */
import { trace } from "@opentelemetry/api";
import type { SpanExporter } from "@opentelemetry/sdk-trace-base";
import type { Logger } from "pino";
import { TracingSetupError } from "./errors.ts";

/** The packages the export needs, as `npm install` takes them: the versions tested with kubeloop. */
export const TRACING_PACKAGES = [
  "@opentelemetry/sdk-trace-base@2.5.1",
  "@opentelemetry/resources@2.5.1",
  "@opentelemetry/exporter-trace-otlp-http@0.212.0",
];

/** A running export. */
export interface TraceExport {
  /** Sends the spans it holds. */
  forceFlush(): Promise<void>;
  /** Sends the spans it holds and stops: at exit. */
  shutdown(): Promise<void>;
}

/** True when the environment asks for traces over OTLP. */
export function tracesRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === "true") return false;
  if (env.OTEL_TRACES_EXPORTER?.split(",").every((e) => e.trim() === "none")) return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT);
}

/**
 * Starts exporting traces when the environment asks for it (see the module's comment); undefined
 * otherwise, or when the program registered a provider of its own. Throws
 * {@link TracingSetupError} when asked and the packages are not installed.
 */
export async function exportTraces(
  serviceName: string,
  logger: Logger,
  env: NodeJS.ProcessEnv = process.env,
): Promise<TraceExport | undefined> {
  if (!tracesRequested(env)) return undefined;
  const [sdk, resources, otlp] = await Promise.all([
    import("@opentelemetry/sdk-trace-base"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/exporter-trace-otlp-http"),
  ]).catch((err: unknown) => {
    throw new TracingSetupError(TRACING_PACKAGES, err);
  });
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ "service.name": serviceName }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new sdk.BasicTracerProvider({
    resource,
    spanProcessors: [
      new sdk.BatchSpanProcessor(
        withFailuresLogged(new otlp.OTLPTraceExporter({ url: tracesUrl(env) }), logger),
      ),
    ],
  });
  if (!trace.setGlobalTracerProvider(provider)) {
    await provider.shutdown();
    logger.info("a tracer provider is registered already: kubeloop's spans go to it");
    return undefined;
  }
  logger.info({ service: resource.attributes["service.name"] }, "exporting traces over OTLP");
  return provider;
}

/** Where spans go, as the OTLP exporter specification says: the traces endpoint as is, or the base's `/v1/traces`. */
export function tracesUrl(env: NodeJS.ProcessEnv): string {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (traces) return traces;
  return `${(env.OTEL_EXPORTER_OTLP_ENDPOINT ?? "").replace(/\/+$/, "")}/v1/traces`;
}

/** How often, at most, a failing export is logged: a collector that is down fails every batch. */
export const EXPORT_FAILURE_LOG_INTERVAL_MS = 60_000;

/**
 * `exporter`, logging the batches it fails to send (spans dropped, and why). The SDK tells such
 * failures only to OpenTelemetry's `diag` logger, which says nothing unless a program sets one: a
 * collector that is down or refuses the spans would otherwise lose every trace in silence.
 */
export function withFailuresLogged(
  exporter: SpanExporter,
  logger: Logger,
  now: () => number = Date.now,
): SpanExporter {
  let lastLogged = Number.NEGATIVE_INFINITY;
  return {
    export: (spans, done) =>
      exporter.export(spans, (result) => {
        // ExportResultCode.SUCCESS is 0 (@opentelemetry/core, not a dependency of kubeloop's own).
        if (result.code !== 0 && now() - lastLogged >= EXPORT_FAILURE_LOG_INTERVAL_MS) {
          lastLogged = now();
          logger.warn(
            { err: result.error, spans: spans.length },
            "could not export traces over OTLP; the batch's spans are dropped (logged at most once a minute)",
          );
        }
        done(result);
      }),
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}
