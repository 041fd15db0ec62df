/** Kubernetes `Status` answers, shaped and worded the way kube-apiserver's own are. */

/** A `meta.k8s.io/v1` Status object. */
export interface KubeStatus {
  kind: "Status";
  apiVersion: "v1";
  metadata: Record<string, never>;
  status: "Failure";
  message: string;
  reason: string;
  details?: { retryAfterSeconds: number };
  code: number;
}

const reasons: Record<number, string> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  406: "NotAcceptable",
  409: "Conflict",
  410: "Expired",
  413: "RequestEntityTooLarge",
  415: "UnsupportedMediaType",
  422: "Invalid",
  429: "TooManyRequests",
  500: "InternalError",
  502: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
};

/** The reason kube-apiserver gives for `code`, or `"Unknown"`. */
export function reasonFor(code: number): string {
  return reasons[code] ?? "Unknown";
}

/** Builds a Status body; `retryAfterSeconds` also goes into `details`. */
export function kubeStatus(
  code: number,
  message: string,
  opts: { reason?: string; retryAfterSeconds?: number } = {},
): KubeStatus {
  const status: KubeStatus = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason: opts.reason ?? reasonFor(code),
    code,
  };
  if (opts.retryAfterSeconds !== undefined) status.details = { retryAfterSeconds: opts.retryAfterSeconds };
  return status;
}

/** Response headers for a Status answer, with `Retry-After` when given. */
export function statusHeaders(body: string, retryAfterSeconds?: number): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(body)),
  };
  if (retryAfterSeconds !== undefined) headers["retry-after"] = String(Math.ceil(retryAfterSeconds));
  return headers;
}
