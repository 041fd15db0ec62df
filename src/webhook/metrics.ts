/**
 * The webhook server's Prometheus metrics, named as controller-runtime names them (label
 * `webhook` is the path), so its dashboards and alerts work; plus the handler failures a
 * response code does not show (an admission failure is answered with HTTP 200).
 */
import { Counter, Gauge, Histogram, type Registry } from "prom-client";

/** Why a handler failed: it threw, or it did not answer in time. */
export type HandlerFailure = "error" | "timeout";

/** The metrics of one webhook server, registered on a given registry. */
export class WebhookMetrics {
  readonly #requests: Counter<"webhook" | "code">;
  readonly #latency: Histogram<"webhook">;
  readonly #inFlight: Gauge<"webhook">;
  readonly #failures: Counter<"webhook" | "reason">;

  /** Registers the metrics on `registry` (once per registry). */
  constructor(registry: Registry) {
    const registers = [registry];
    this.#requests = new Counter({
      name: "controller_runtime_webhook_requests_total",
      help: "Total number of admission requests by HTTP status code.",
      labelNames: ["webhook", "code"],
      registers,
    });
    this.#latency = new Histogram({
      name: "controller_runtime_webhook_latency_seconds",
      help: "Histogram of the latency of processing admission requests",
      labelNames: ["webhook"],
      registers,
    });
    this.#inFlight = new Gauge({
      name: "controller_runtime_webhook_requests_in_flight",
      help: "Current number of admission requests being served.",
      labelNames: ["webhook"],
      registers,
    });
    this.#failures = new Counter({
      name: "kubeloop_webhook_handler_failures_total",
      help: "Webhook handlers that threw or timed out (the request was refused with code 500), per webhook and reason",
      labelNames: ["webhook", "reason"],
      registers,
    });
  }

  /** A request to `webhook` started. */
  started(webhook: string): void {
    this.#inFlight.inc({ webhook });
  }

  /** A request to `webhook` was answered with HTTP `code` after `seconds`. */
  finished(webhook: string, code: number, seconds: number): void {
    this.#inFlight.dec({ webhook });
    this.#requests.inc({ webhook, code: String(code) });
    this.#latency.observe({ webhook }, seconds);
  }

  /** The handler of `webhook` failed. */
  failed(webhook: string, reason: HandlerFailure): void {
    this.#failures.inc({ webhook, reason });
  }
}
