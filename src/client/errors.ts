import { groupOf } from "../api/index.ts";
import { KubeloopError } from "../errors/index.ts";

/** One field-level cause of an `Invalid` (422) answer, as the apiserver reports it. */
export interface StatusCause {
  /** Machine-readable reason, e.g. `FieldValueRequired`, `FieldValueInvalid`. */
  reason?: string;
  message?: string;
  /** JSON path of the field, e.g. `spec.count`. */
  field?: string;
}

/** The parts of a `metav1.Status` failure body the error classes keep. */
export interface StatusDetails {
  /** HTTP status code. */
  code: number;
  /** `reason` of the Status, e.g. `NotFound`, `Conflict`, `Invalid`, `Expired`. */
  reason: string;
  message: string;
  /** Name, group and kind of the object the failure is about, when the server said. */
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    causes?: StatusCause[];
    retryAfterSeconds?: number;
  };
}

/** What was being asked when the apiserver answered with a failure. */
export interface RequestSummary {
  method: string;
  path: string;
}

/**
 * A failure answered by the apiserver. Subclasses name the common cases; match with
 * `instanceof` or on `code`. `status` carries the server's Status fields.
 */
export class ApiError extends KubeloopError {
  /** HTTP status code. */
  readonly statusCode: number;
  /** The server's `reason`, e.g. `NotFound`. */
  readonly reason: string;
  /** The full Status details. */
  readonly status: StatusDetails;
  /** The request that failed. */
  readonly request: RequestSummary;

  constructor(code: string, status: StatusDetails, request: RequestSummary, hint = "") {
    super(
      code,
      `${request.method} ${request.path}: ${status.message || status.reason} (${status.code} ${status.reason})${hint}`,
    );
    this.statusCode = status.code;
    this.reason = status.reason;
    this.status = status;
    this.request = request;
  }
}

/** 404: the object (or the resource type) does not exist. Code `KL_NOT_FOUND`. */
export class NotFoundError extends ApiError {
  constructor(status: StatusDetails, request: RequestSummary) {
    super("KL_NOT_FOUND", status, request);
  }
}

/** 409 `Conflict`: the object changed since it was read (stale resourceVersion). Re-read and retry. Code `KL_CONFLICT`. */
export class ConflictError extends ApiError {
  constructor(status: StatusDetails, request: RequestSummary) {
    super("KL_CONFLICT", status, request, "; re-read the object and apply the change to the fresh copy");
  }
}

/** 409 `AlreadyExists`: create of a name that is taken. Code `KL_ALREADY_EXISTS`. */
export class AlreadyExistsError extends ApiError {
  constructor(status: StatusDetails, request: RequestSummary) {
    super("KL_ALREADY_EXISTS", status, request);
  }
}

/** 401: the credentials were not accepted. Code `KL_UNAUTHORIZED`. */
export class UnauthorizedError extends ApiError {
  constructor(status: StatusDetails, request: RequestSummary) {
    super(
      "KL_UNAUTHORIZED",
      status,
      request,
      "; check the kubeconfig's user (token, certificate or exec plugin)",
    );
  }
}

/**
 * Why the apiserver answered 403, told apart by its message: `rbac` (the identity lacks the verb
 * on the resource), `quota` (a ResourceQuota is exceeded), `admission` (an admission webhook,
 * ValidatingAdmissionPolicy, PodSecurity or LimitRange refused the object), `terminating` (the
 * namespace is being deleted), or `unknown`.
 */
export type ForbiddenCause = "rbac" | "quota" | "admission" | "terminating" | "unknown";

const forbiddenCauses: readonly { cause: ForbiddenCause; pattern: RegExp; fix: string }[] = [
  {
    cause: "rbac",
    pattern: /\bcannot [a-z]+ resource\b/,
    fix:
      "the operator's ServiceAccount lacks this verb on this resource: declare the kind where the operator uses it " +
      "(`.owns(Kind)` for children a controller creates, `.watches(Kind)` for kinds it reads, the operator's " +
      "`permissions` for any other call), then rerun `kubeloop generate` and apply its RBAC",
  },
  {
    cause: "quota",
    pattern: /\bexceeded quota\b|\bmust specify limits\b|\bmust specify requests\b/,
    fix: "the namespace's ResourceQuota refused it: lower what the object requests, or raise the quota (`kubectl describe resourcequota`)",
  },
  {
    cause: "terminating",
    pattern: /\bbecause it is being terminated\b/,
    fix: "the namespace is being deleted: nothing can be created in it until it is gone",
  },
  {
    cause: "admission",
    pattern:
      /\badmission webhook\b|\bValidatingAdmissionPolicy\b|\bviolates PodSecurity\b|\bmaximum [a-z]+ usage\b|\bminimum [a-z]+ usage\b/,
    fix: "an admission check refused the object (the message names it): change the object to satisfy it, or ask the cluster's admin about the policy",
  },
];

/** Classifies a 403 by the apiserver's message; see {@link ForbiddenCause}. */
export function forbiddenCause(message: string): { cause: ForbiddenCause; fix: string } {
  const known = forbiddenCauses.find((c) => c.pattern.test(message));
  return (
    known ?? {
      cause: "unknown",
      fix: "check the cluster's RBAC, quotas and admission policies for this request",
    }
  );
}

/** 403: RBAC, a quota or an admission check denied the request ({@link ForbiddenError.deniedBy} says which). Code `KL_FORBIDDEN`. */
export class ForbiddenError extends ApiError {
  /** What refused the request, as the message tells it. */
  readonly deniedBy: ForbiddenCause;
  constructor(status: StatusDetails, request: RequestSummary) {
    const { cause, fix } = forbiddenCause(status.message);
    super("KL_FORBIDDEN", status, request, `; ${fix}`);
    this.deniedBy = cause;
  }
}

/** 422 `Invalid` (or 400 `BadRequest`): the object failed validation. `causes` lists each field at fault. Code `KL_INVALID`. */
export class InvalidError extends ApiError {
  /** One entry per field the server rejected. */
  readonly causes: StatusCause[];
  constructor(status: StatusDetails, request: RequestSummary) {
    super("KL_INVALID", status, request);
    this.causes = status.details?.causes ?? [];
  }
}

/** 410 `Expired`/`Gone`: a resourceVersion or continue token is too old; list again from scratch. Code `KL_EXPIRED`. */
export class ExpiredError extends ApiError {
  constructor(status: StatusDetails, request: RequestSummary) {
    super("KL_EXPIRED", status, request);
  }
}

/** 429: the server (or its flow control) asks to slow down; `retryAfterSeconds` says how long. Code `KL_TOO_MANY_REQUESTS`. */
export class TooManyRequestsError extends ApiError {
  constructor(status: StatusDetails, request: RequestSummary) {
    super("KL_TOO_MANY_REQUESTS", status, request);
  }
}

/** 504/408 `Timeout` (including "Too large resource version"): the server gave up waiting. Code `KL_TIMEOUT`. */
export class ServerTimeoutError extends ApiError {
  constructor(status: StatusDetails, request: RequestSummary) {
    super("KL_TIMEOUT", status, request);
  }
  /** True when the server does not yet know the requested resourceVersion (relist with none). */
  get resourceVersionTooLarge(): boolean {
    return (
      this.status.details?.causes?.some((c) => c.reason === "ResourceVersionTooLarge") === true ||
      /too large resource version/i.test(this.status.message)
    );
  }
}

/** Any other 5xx. Code `KL_SERVER_ERROR`. */
export class ServerError extends ApiError {
  constructor(status: StatusDetails, request: RequestSummary) {
    super("KL_SERVER_ERROR", status, request);
  }
}

/** Error codes of sockets and undici that mean no answer arrived in time. */
const timeoutCodes = new Set([
  "ETIMEDOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/**
 * True when `err` itself (its `cause` is not searched) says only that the apiserver was away: not
 * reachable, answering 502/503 (a restarting apiserver answers 503 until it has installed every
 * path) or a server-side timeout, or not answering in time. Such a request can be sent again as
 * soon as the apiserver is back. A plain 500 (a failing admission webhook, say) is not among them.
 */
export function apiserverAway(err: unknown): boolean {
  return (
    err instanceof UnreachableError ||
    err instanceof ServerTimeoutError ||
    (err instanceof ServerError && (err.statusCode === 502 || err.statusCode === 503)) ||
    (err instanceof DOMException && err.name === "TimeoutError") ||
    timeoutCodes.has((err as { code?: unknown } | null)?.code as string)
  );
}

/**
 * A request through a client after its {@link Client.close}: closed is for good, so that a watch
 * or informer left running on it ends, saying so, rather than reconnecting forever. Not retried.
 * Code `KL_CLIENT_CLOSED`.
 */
export class ClientClosedError extends KubeloopError {
  constructor(server: string) {
    super(
      "KL_CLIENT_CLOSED",
      `the client of ${server} was closed, so it sends nothing more. Fix: stop the watches, informers ` +
        "and managers that use a client before closing it, or make a new Client.",
    );
  }
}

/** The apiserver could not be reached at all (refused, reset, DNS, TLS). Code `KL_UNREACHABLE`. */
export class UnreachableError extends KubeloopError {
  constructor(server: string, cause: unknown) {
    const detail =
      cause instanceof Error ? ((cause as NodeJS.ErrnoException).code ?? cause.message) : String(cause);
    super(
      "KL_UNREACHABLE",
      `cannot reach the API server at ${server} (${detail}). Is the cluster running and is KUBECONFIG pointing at it? ` +
        "For the local control plane: `kubeloop cluster status`.",
      { cause },
    );
  }
}

/**
 * A write refused before it was sent because the client it went through is fenced
 * (`Client.fenced`): the manager lost leadership, and from that moment nothing more is written;
 * the process exits and the new leader takes over. A fence raised for another reason (a webhook
 * handler that must have no side effects) says why in its reason, a {@link KubeloopError} that
 * names its own fix. Not retried. Code `KL_WRITE_FENCED`.
 */
export class WriteFencedError extends KubeloopError {
  constructor(request: RequestSummary, reason: unknown) {
    const why = reason instanceof Error ? reason.message : String(reason);
    const fix =
      reason instanceof KubeloopError
        ? ""
        : " Stop work when ctx.signal aborts; a new leader takes over the writes.";
    super(
      "KL_WRITE_FENCED",
      `${request.method} ${request.path} was not sent: writes through this client are fenced (${why}).${fix}`,
      { cause: reason },
    );
  }
}

/**
 * What discovery shows of a kind's API group when the kind itself is not served: enough to tell a
 * missing CRD from a wrong version.
 */
export interface ServedGroup {
  /** The group's versions the apiserver serves, e.g. `["example.com/v1"]`; empty when it serves none. */
  readonly groupVersions: readonly string[];
  /** Those of `groupVersions` that serve the kind (it is served, but in another version). */
  readonly kindVersions: readonly string[];
}

/**
 * The apiserver does not serve the requested kind: its CRD is not installed, or the group or
 * version is wrong. With what discovery shows of the group (`served`), the message says which:
 * e.g. "the server serves example.com/v1 but not v1alpha1". Code `KL_KIND_NOT_FOUND`.
 */
export class KindNotFoundError extends KubeloopError {
  /** `apiVersion/kind` that is not served. */
  readonly kind: string;
  /** What the server serves of the kind's group, when discovery was asked. */
  readonly served: ServedGroup | undefined;

  constructor(apiVersion: string, kind: string, served?: ServedGroup, options?: { cause?: unknown }) {
    super(
      "KL_KIND_NOT_FOUND",
      `the API server does not serve ${kind} in ${apiVersion}${servedText(apiVersion, kind, served)}. ` +
        "If it is a custom resource, install its CRD (`kubeloop install`, or `kubectl apply --server-side -f " +
        "config/crds.yaml` after `kubeloop generate`), or correct the kind's group and version.",
      options,
    );
    this.kind = `${apiVersion}/${kind}`;
    this.served = served;
  }
}

/** E.g. `: the server serves example.com/v1 but not v1alpha1`; empty without discovery. */
function servedText(apiVersion: string, kind: string, served: ServedGroup | undefined): string {
  if (!served) return "";
  const group = groupOf(apiVersion);
  const version = apiVersion.slice(apiVersion.indexOf("/") + 1);
  if (served.kindVersions.length > 0)
    return `: the server serves ${kind} in ${served.kindVersions.join(", ")} but not in ${version}`;
  if (served.groupVersions.length === 0)
    return `: the server serves no version of the group ${group || "(core)"}`;
  const versions = served.groupVersions.join(", ");
  return served.groupVersions.includes(apiVersion)
    ? `: the server serves ${versions}, but ${apiVersion} has no kind ${kind}`
    : `: the server serves ${versions} but not ${version}`;
}

type ErrorClass = new (status: StatusDetails, request: RequestSummary) => ApiError;

const byReason: Record<string, ErrorClass> = {
  NotFound: NotFoundError,
  Conflict: ConflictError,
  AlreadyExists: AlreadyExistsError,
  Unauthorized: UnauthorizedError,
  Forbidden: ForbiddenError,
  Invalid: InvalidError,
  BadRequest: InvalidError,
  Expired: ExpiredError,
  Gone: ExpiredError,
  TooManyRequests: TooManyRequestsError,
  Timeout: ServerTimeoutError,
};

const byCode: Record<number, ErrorClass> = {
  400: InvalidError,
  401: UnauthorizedError,
  403: ForbiddenError,
  404: NotFoundError,
  408: ServerTimeoutError,
  409: ConflictError,
  410: ExpiredError,
  422: InvalidError,
  429: TooManyRequestsError,
  504: ServerTimeoutError,
};

/** Turns a failure answer (status code plus parsed body, ideally a metav1.Status) into the matching error. */
export function apiErrorFrom(code: number, body: unknown, request: RequestSummary): ApiError {
  const s = (typeof body === "object" && body !== null ? body : {}) as Partial<StatusDetails>;
  const status: StatusDetails = {
    code: typeof s.code === "number" ? s.code : code,
    reason: typeof s.reason === "string" && s.reason ? s.reason : `HTTP${code}`,
    message: typeof s.message === "string" ? s.message : typeof body === "string" ? body.slice(0, 500) : "",
    details: s.details,
  };
  const Class = byReason[status.reason] ?? byCode[code] ?? (code >= 500 ? ServerError : undefined);
  return Class ? new Class(status, request) : new ApiError("KL_API_ERROR", status, request);
}
