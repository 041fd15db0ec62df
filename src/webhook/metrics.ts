/**
 * The webhook server's Prometheus metrics, named as controller-runtime names them (label
 * `webhook` is the path), so its dashboards and alerts work; plus the handler failures a
 * response code does not show (an admission failure is answered with HTTP 200).
 */
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import { type LabelOf, METRICS, promClientConfig } from "../metrics/index.ts";

/** Why a handler failed: it threw, or it did not answer in time. */
export type HandlerFailure = "error" | "timeout";

/** The metrics of one webhook server, registered on a given registry. */
export class WebhookMetrics {
  readonly #requests: Counter<LabelOf<typeof METRICS.webhookRequests>>;
  readonly #latency: Histogram<LabelOf<typeof METRICS.webhookLatency>>;
  readonly #inFlight: Gauge<LabelOf<typeof METRICS.webhookRequestsInFlight>>;
  readonly #failures: Counter<LabelOf<typeof METRICS.webhookHandlerFailures>>;

  /** Registers the metrics on `registry` (once per registry). */
  constructor(registry: Registry) {
    this.#requests = new Counter(promClientConfig(METRICS.webhookRequests, registry));
    this.#latency = new Histogram(promClientConfig(METRICS.webhookLatency, registry));
    this.#inFlight = new Gauge(promClientConfig(METRICS.webhookRequestsInFlight, registry));
    this.#failures = new Counter(promClientConfig(METRICS.webhookHandlerFailures, registry));
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
