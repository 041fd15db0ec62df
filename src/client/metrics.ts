/**
 * Hooks the client calls for every attempt it sends, so a metrics registry (the manager binds
 * prom-client to them as `rest_client_requests_total` and `rest_client_request_duration_seconds`)
 * or a test can observe traffic. The default does nothing.
 */

/** One finished attempt. */
export interface RequestObservation {
  /** HTTP method. */
  method: string;
  /** Kubernetes verb (`get`, `list`, `watch`, ...). */
  verb: string;
  /** HTTP status code as a string, or `<error>` when no answer arrived. */
  code: string;
  /** Time until the response headers arrived. */
  seconds: number;
}

/** Receives one call per attempt. */
export interface ClientMetrics {
  request(observation: RequestObservation): void;
}

/** Metrics hooks that record nothing. */
export const noopClientMetrics: ClientMetrics = { request: () => {} };
