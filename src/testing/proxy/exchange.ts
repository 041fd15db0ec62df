/**
 * One request through the proxy, from arrival to the end of its response: identify the caller,
 * count it, apply the request faults of the rules that match, forward it upstream, and stream the
 * answer back (watches through {@link WatchStream}).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { pipeline } from "node:stream/promises";
import type { TLSSocket } from "node:tls";
import type { Dispatcher } from "undici";
import type { Clock } from "../../clock/index.ts";
import type { RequestLog, RequestRecord } from "./counting.ts";
import type { Fault } from "./fault.ts";
import { type Caller, callerName, identifyCaller, identityHeaders, peerCertificate } from "./identity.ts";
import { describeRequest, type RequestInfo } from "./request-info.ts";
import { Decisions, type Rule, type RuleSet } from "./rules.ts";
import { kubeStatus, statusHeaders } from "./status.ts";
import { endToEndHeaders, type Upstream } from "./upstream.ts";
import { type StreamSink, WatchStream } from "./watch-stream.ts";

/** What every exchange of one proxy shares. */
export interface ProxyContext {
  rules: RuleSet;
  log: RequestLog;
  upstream: Upstream;
  clock: Clock;
  /** Open watch streams, for `killWatches()` and rules that end streams. */
  watches: Set<WatchStream>;
  /** Aborted when the proxy stops. */
  stopping: AbortSignal;
}

/** Everything about the request being handled. */
interface Exchange {
  ctx: ProxyContext;
  req: IncomingMessage;
  res: ServerResponse;
  info: RequestInfo;
  record: RequestRecord;
  decisions: Decisions;
  /** Aborted when the client goes away or the proxy stops. */
  signal: AbortSignal;
}

/** Handles one request; never rejects. */
export async function handleRequest(
  ctx: ProxyContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const info = describeRequest(req.method ?? "GET", req.url ?? "/");
  const caller = identifyCaller(req.headers, peerCertificate(req.socket as TLSSocket));
  const record = ctx.log.start(info, caller.kind === "refused" ? undefined : callerName(caller));
  const gone = new AbortController();
  res.once("close", () => {
    ctx.log.finish(record);
    gone.abort();
  });
  const signal = AbortSignal.any([gone.signal, ctx.stopping]);
  const exchange: Exchange = { ctx, req, res, info, record, decisions: new Decisions(info), signal };
  try {
    if (caller.kind === "refused") return answerStatus(exchange, caller.status, caller.message);
    const faults = await applyRequestFaults(exchange);
    if (faults !== "answered") await forward(exchange, caller, faults);
  } catch (err) {
    if (signal.aborted) return;
    record.error = (err as Error).message;
    if (res.headersSent) res.destroy();
    else answerStatus(exchange, 502, `kubeloop proxy: ${ctx.upstream.server} failed: ${record.error}`);
  }
}

function answerStatus(exchange: Exchange, code: number, message: string, fault: Fault = {}): void {
  const retryAfter = fault.retryAfterSeconds ?? (code === 429 ? 1 : undefined);
  const status = kubeStatus(code, fault.message ?? message, {
    reason: fault.reason,
    retryAfterSeconds: retryAfter,
  });
  const body = JSON.stringify(status);
  exchange.res.writeHead(code, statusHeaders(body, retryAfter));
  exchange.res.end(body);
  exchange.record.status = code;
}

/** What the request faults left to do when forwarding. */
interface Forwarding {
  resetAfterHeaders: boolean;
  /** The URL to ask the apiserver: the client's, or a list's rewritten by `listAsOf`. */
  url: string;
}

/** `url` (a first page of a list) asking for the objects as of `resourceVersion`, exactly. */
export function listAsOf(url: string, resourceVersion: string): string {
  const parsed = new URL(url, "http://proxy");
  if (parsed.searchParams.has("continue")) return url;
  parsed.searchParams.set("resourceVersion", resourceVersion);
  parsed.searchParams.set("resourceVersionMatch", "Exact");
  return `${parsed.pathname}${parsed.search}`;
}

/** Applies latency, blackhole, reset, status and list-as-of faults, in rule order; says whether the request was answered. */
async function applyRequestFaults(exchange: Exchange): Promise<"answered" | Forwarding> {
  const { ctx, record, signal } = exchange;
  let url = exchange.req.url ?? "/";
  const rules = exchange.decisions.requestRules(ctx.rules);
  for (const rule of rules) {
    const fault = rule.fault;
    if (fault.latencyMs) {
      record.faults.push("latency");
      await ctx.clock.sleep(fault.latencyMs, signal);
    }
    if (fault.blackhole) {
      record.faults.push("blackhole");
      await untilRemoved(rule, signal);
    }
    if (fault.reset === "before-headers") {
      record.faults.push("reset");
      exchange.res.destroy();
      return "answered";
    }
    if (fault.status !== undefined) {
      record.faults.push("status");
      answerStatus(exchange, fault.status, `kubeloop proxy: injected ${fault.status}`, fault);
      return "answered";
    }
    if (fault.listAsOf && exchange.info.verb === "list") {
      record.faults.push("stale");
      url = listAsOf(url, fault.listAsOf);
    }
  }
  return { resetAfterHeaders: rules.some((r) => r.fault.reset === "after-headers"), url };
}

function untilRemoved(rule: Rule, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    void rule.removed.then(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    });
  });
}

async function forward(
  exchange: Exchange,
  caller: Caller,
  { resetAfterHeaders, url }: Forwarding,
): Promise<void> {
  const { ctx, req, res, info, record } = exchange;
  const watch = info.verb === "watch";
  const headers = { ...endToEndHeaders(req.headersDistinct), ...identityHeaders(caller) };
  // Event faults read the stream as text, so ask for it uncompressed.
  if (watch) delete headers["accept-encoding"];
  const upstreamAbort = new AbortController();
  const response = await ctx.upstream.send({
    method: info.method,
    url,
    headers,
    body: req,
    asAdmin: caller.kind === "certificate",
    signal: AbortSignal.any([exchange.signal, upstreamAbort.signal]),
  });
  res.writeHead(response.statusCode, endToEndHeaders(response.headers));
  record.status = response.statusCode;
  if (resetAfterHeaders) {
    record.faults.push("reset");
    res.flushHeaders();
    // The body is dropped unread; when the client's reset then aborts the upstream request, the
    // body reports that abort as an error, which must not go unhandled (it would end the process).
    response.body.on("error", () => {});
    response.body.destroy();
    res.destroy();
    return;
  }
  if (watch && response.statusCode === 200)
    return streamWatch(exchange, response, () => upstreamAbort.abort());
  await pipeline(response.body, res);
}

async function streamWatch(
  exchange: Exchange,
  response: Dispatcher.ResponseData,
  stopUpstream: () => void,
): Promise<void> {
  const { ctx, res, record } = exchange;
  res.flushHeaders();
  const stats = { received: 0, forwarded: 0, dropped: 0, duplicated: 0, silenced: 0 };
  record.events = stats;
  const rules = () => {
    const applied = exchange.decisions.streamRules(ctx.rules);
    if (applied.length > 0 && !record.faults.includes("stream")) record.faults.push("stream");
    return applied;
  };
  const contentType = String(response.headers["content-type"] ?? "");
  const stream = new WatchStream({
    rules,
    clock: ctx.clock,
    sink: responseSink(res),
    stats,
    json: contentType.includes("json"),
    stopUpstream,
    signal: exchange.signal,
  });
  ctx.watches.add(stream);
  res.once("close", () => ctx.watches.delete(stream));
  await stream.pump(response.body);
}

function responseSink(res: ServerResponse): StreamSink {
  return {
    write: (data) => res.write(data),
    drained: () =>
      new Promise<void>((resolve) => {
        const done = () => {
          res.off("drain", done);
          res.off("close", done);
          resolve();
        };
        res.on("drain", done);
        res.on("close", done);
      }),
    end: () => res.end(),
    destroy: () => res.destroy(),
  };
}
