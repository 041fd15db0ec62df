/**
 * The interceptors the client composes around its transport, outermost first:
 * retry (safe cases only) → rate limit (per attempt) → write fence → metrics (per attempt) → 401 refresh.
 */
import type { Clock } from "../../clock/index.ts";
import type { Credentials } from "../config/index.ts";
import { UnreachableError, WriteFencedError } from "../errors.ts";
import type { ClientMetrics } from "../metrics.ts";
import { type ApiRequest, authUsed, type Interceptor, type SentResponse } from "../transport.ts";

/**
 * Token bucket: `qps` requests per second on average, bursts up to `burst`. A request aborted
 * before it is sent (waiting for its turn, for its token, or right after) spends no token.
 */
export function rateLimit(clock: Clock, qps: number, burst: number): Interceptor {
  if (!Number.isFinite(qps) || qps <= 0) return (next) => next;
  let tokens = burst;
  let last = clock.monotonicMs();
  let chain = Promise.resolve();
  const refund = () => {
    tokens = Math.min(burst, tokens + 1);
  };
  const take = async (signal?: AbortSignal) => {
    signal?.throwIfAborted();
    const now = clock.monotonicMs();
    tokens = Math.min(burst, tokens + ((now - last) / 1000) * qps) - 1;
    last = now;
    if (tokens >= 0) return;
    await clock.sleep((-tokens / qps) * 1000, signal).catch((err: unknown) => {
      refund();
      throw err;
    });
  };
  return (next) => async (request) => {
    // Serialise token accounting so waiters are served in arrival order.
    const turn = chain.then(() => take(request.signal));
    chain = turn.catch(() => {});
    await turn;
    if (request.signal?.aborted) {
      refund();
      request.signal.throwIfAborted();
    }
    return next(request);
  };
}

const writeVerbs: ReadonlySet<string> = new Set(["create", "update", "patch", "delete", "deletecollection"]);

/**
 * Refuses a write once any of `request.fences` has aborted, before the attempt is sent, with the
 * reason of the first that did: it sits after the rate limiter, so a write that waited for its
 * token while a fence went up is refused too.
 */
export function refuseFencedWrites(): Interceptor {
  return (next) => (request) => {
    const raised = writeVerbs.has(request.verb) ? request.fences?.find((f) => f.aborted) : undefined;
    if (raised) return Promise.reject(new WriteFencedError(request, raised.reason));
    return next(request);
  };
}

/** Records every attempt through {@link ClientMetrics}. */
export function observe(clock: Clock, metrics: ClientMetrics): Interceptor {
  return (next) => async (request) => {
    const started = clock.monotonicMs();
    const record = (code: string) =>
      metrics.request({
        method: request.method,
        verb: request.verb,
        code,
        seconds: (clock.monotonicMs() - started) / 1000,
      });
    try {
      const res = await next(request);
      record(String(res.status));
      return res;
    } catch (err) {
      record("<error>");
      throw err;
    }
  };
}

/** On 401, refreshes the credentials once (token file re-read, exec plugin re-run) and resends. */
export function refreshOn401(credentials: Credentials): Interceptor {
  return (next) => async (request) => {
    const res: SentResponse = await next(request);
    const used = res[authUsed];
    if (res.status !== 401 || !used) return res;
    credentials.invalidate(used);
    const fresh = await credentials.get(request.signal);
    if (fresh === used) return res;
    await res.body.dump();
    return next(request);
  };
}

const networkCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** True for errors where no HTTP answer arrived because the network failed. */
export function isNetworkError(err: unknown): boolean {
  const code = (err as { code?: string } | undefined)?.code;
  return code !== undefined && networkCodes.has(code);
}

/** True when the request surely never reached the server, so even a write can be resent. */
function neverSent(err: unknown): boolean {
  const code = (err as { code?: string } | undefined)?.code;
  return code === "ECONNREFUSED" || code === "UND_ERR_CONNECT_TIMEOUT";
}

const safeToRepeat = (request: ApiRequest) => request.verb === "get" || request.verb === "list";

/** Options of {@link retry}. */
export interface RetryOptions {
  clock: Clock;
  server: string;
  /** Attempts for a 429 (honouring Retry-After). Default 10, as client-go. */
  maxThrottled?: number;
  /** Attempts for reads on network errors and 5xx. Default 4. */
  maxReads?: number;
  /** Told of every retry. */
  metrics?: Pick<ClientMetrics, "retry">;
}

/**
 * Retries only where it is safe: any request answered 429 (it was not processed), reads
 * (get/list) after a network error or a 500/502/503/504, and writes whose connection was never
 * established. Waits honour `Retry-After`, else back off exponentially from 100 ms to 2 s.
 * When the server stays unreachable, throws {@link UnreachableError}.
 */
export function retry(options: RetryOptions): Interceptor {
  const { clock, maxThrottled = 10, maxReads = 4, metrics } = options;
  const retrying = (method: string, code: string) => metrics?.retry?.({ method, code });
  return (next) => async (request) => {
    for (let attempt = 1; ; attempt++) {
      let res: SentResponse;
      try {
        res = await next(request);
      } catch (err) {
        const retriable = (safeToRepeat(request) && isNetworkError(err)) || neverSent(err);
        if (request.signal?.aborted || !retriable || attempt >= maxReads) {
          throw isNetworkError(err) ? new UnreachableError(options.server, err) : err;
        }
        retrying(request.method, "<error>");
        await clock.sleep(backoff(attempt), request.signal);
        continue;
      }
      const throttled = res.status === 429 && attempt < maxThrottled;
      const failedRead =
        safeToRepeat(request) && [500, 502, 503, 504].includes(res.status) && attempt < maxReads;
      if (!throttled && !failedRead) return res;
      retrying(request.method, String(res.status));
      await res.body.dump();
      await clock.sleep(retryAfterMs(res) ?? backoff(attempt), request.signal);
    }
  };
}

function backoff(attempt: number): number {
  return Math.min(2000, 100 * 2 ** (attempt - 1));
}

function retryAfterMs(res: SentResponse): number | undefined {
  const header = res.headers["retry-after"];
  const seconds = Number(Array.isArray(header) ? header[0] : header);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds, 60) * 1000 : undefined;
}
