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
  /**
   * The client is about to send a request again (`code`: the status of the attempt it repeats, or
   * `<error>`), as client-go counts in `rest_client_request_retries_total{code,verb,host}`.
   */
  retry?(observation: RetryObservation): void;
}

/** One attempt about to be repeated. */
export interface RetryObservation {
  /** HTTP method, which client-go's retry metric calls `verb`. */
  method: string;
  /** HTTP status code of the attempt being repeated as a string, or `<error>` when no answer arrived. */
  code: string;
}

/** Metrics hooks that record nothing. */
export const noopClientMetrics: ClientMetrics = { request: () => {} };
