/**
 * The machinery a client and its views share: the transport's connection pools, the interceptor
 * chain every request goes through (retries, rate limit, fencing, metrics, 401 refresh), discovery.
 */
import { systemClock } from "../../clock/index.ts";
import type { ClusterConnection } from "../config/index.ts";
import { Discovery } from "../discovery.ts";
import { noopClientMetrics } from "../metrics.ts";
import type { ClientOptions } from "../options.ts";
import { compose, type Dispatch, Transport } from "../transport.ts";
import { observe, rateLimit, refreshOn401, refuseFencedWrites, retry } from "./interceptors.ts";

/** The machinery a client and its fenced views share: connection pools, the interceptor chain, discovery. */
export interface ClientCore {
  readonly transport: Transport;
  readonly dispatch: Dispatch;
  readonly discovery: Discovery;
}

/** A client's core: its transport, the interceptor chain over it, and discovery through that chain. */
export function clientCore(connection: ClusterConnection, options: ClientOptions): ClientCore {
  const transport = new Transport(connection, { userAgent: options.userAgent, timeoutMs: options.timeoutMs });
  const dispatch = dispatchChain(transport, connection, options);
  return { transport, dispatch, discovery: new Discovery(dispatch, options.clock ?? systemClock) };
}

/** The interceptors every request goes through, over `transport`, with its own rate limiter. */
export function dispatchChain(
  transport: Transport,
  connection: ClusterConnection,
  options: ClientOptions,
): Dispatch {
  const clock = options.clock ?? systemClock;
  return compose(
    transport.dispatch,
    retry({ clock, server: connection.server, metrics: options.metrics }),
    rateLimit(clock, options.qps ?? Number.POSITIVE_INFINITY, options.burst ?? 30),
    refuseFencedWrites(),
    observe(clock, options.metrics ?? noopClientMetrics),
    refreshOn401(connection.credentials),
  );
}
