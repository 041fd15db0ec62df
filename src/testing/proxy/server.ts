/**
 * The proxy's HTTPS server on 127.0.0.1 and the {@link FaultProxy} handle tests drive it with.
 * Upgraded connections (exec, attach, port-forward) are refused with 501.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Duplex } from "node:stream";
import { stringify } from "yaml";
import { systemClock } from "../../clock/index.ts";
import { type RequestCounts, RequestLog, type RequestRecord } from "./counting.ts";
import { handleRequest, type ProxyContext } from "./exchange.ts";
import type { Fault } from "./fault.ts";
import { type KubeconfigSource, proxiedKubeconfig } from "./kubeconfig.ts";
import type { Match } from "./match.ts";
import { type ProxyOptions, resolveSetup } from "./options.ts";
import { type RuleHandle, RuleSet } from "./rules.ts";
import { kubeStatus } from "./status.ts";
import { Upstream } from "./upstream.ts";
import type { WatchStream } from "./watch-stream.ts";

/** A running fault-injecting proxy in front of an apiserver. */
export interface FaultProxy {
  /** `https://127.0.0.1:<port>`. */
  readonly url: string;
  /** PEM of the CA that signed the proxy's serving certificate. */
  readonly caPem: string;
  /**
   * Writes a kubeconfig that points at the proxy with the credentials of `source` (a path or a
   * parsed document; default: the admin kubeconfig) and returns its path. Removed on stop.
   */
  kubeconfig(source?: KubeconfigSource): string;
  /** Adds a rule: requests (and watch events) selected by `match` suffer `fault` until removed. */
  inject(match: Match, fault: Fault): RuleHandle;
  /** Removes every rule. */
  clear(): void;
  /** Requests since the last reset, by verb and by resource. */
  counts(): RequestCounts;
  /** Create, update, patch, delete and deletecollection requests since the last reset. */
  mutatingCount(): number;
  /**
   * The recent requests (oldest first) with their outcome; with `afterId`, only those that arrived
   * after the request of that id (cheaper, for polling).
   */
  requests(afterId?: number): RequestRecord[];
  /** The id of the last request that arrived (0 before the first): pass it to {@link requests} later. */
  lastRequestId(): number;
  /** Zeroes the counts and forgets the request history. */
  resetCounts(): void;
  /** Ends every open watch: `"reset"` (default) drops the connections, `"end"` ends them cleanly. Returns how many. */
  killWatches(opts?: { mode?: "reset" | "end" }): number;
  /** Closes every connection and the server, and removes the kubeconfigs it wrote. */
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Starts a proxy on a random loopback port.
 *
 * @example
 * ```ts
 * await using proxy = await startProxy({ cluster });
 * const rule = proxy.inject({ verb: "watch", resource: "configmaps" }, { dropEvents: "all" });
 * // ... run a controller with proxy.kubeconfig() ...
 * rule.remove();
 * ```
 */
export async function startProxy(options: ProxyOptions): Promise<FaultProxy> {
  const setup = await resolveSetup(options);
  const stopping = new AbortController();
  const ctx: ProxyContext = {
    rules: new RuleSet(options.seed ?? 1),
    log: new RequestLog(options.historySize ?? 1000, options.clock ?? systemClock),
    upstream: new Upstream(setup.upstream),
    clock: options.clock ?? systemClock,
    watches: new Set<WatchStream>(),
    stopping: stopping.signal,
  };
  ctx.rules.onAdded((rule) => {
    if (rule.fault.endStream !== undefined) for (const stream of ctx.watches) stream.checkEnd();
  });
  const server = createServer(
    {
      key: setup.serving.keyPem,
      cert: setup.serving.certPem,
      ca: setup.clientCa,
      requestCert: true,
      rejectUnauthorized: false,
    },
    (req, res) => void handleRequest(ctx, req, res),
  );
  server.on("upgrade", (_req, socket: Duplex) => refuseUpgrade(socket));
  const url = await listen(server);
  const dir = mkdtempSync(join(tmpdir(), "kubeloop-proxy-"));
  let written = 0;

  const stop = async () => {
    if (stopping.signal.aborted) return;
    stopping.abort();
    for (const stream of ctx.watches) stream.reset();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
    await ctx.upstream.close();
    rmSync(dir, { recursive: true, force: true });
  };

  return {
    url,
    caPem: setup.serving.caPem,
    kubeconfig(source = setup.adminKubeconfig) {
      const path = join(dir, `kubeconfig-${++written}`);
      writeFileSync(path, stringify(proxiedKubeconfig(source, url, setup.serving.caPem)), { mode: 0o600 });
      return path;
    },
    inject: (match, fault) => ctx.rules.add(match, fault),
    clear: () => ctx.rules.clear(),
    counts: () => ctx.log.counts(),
    mutatingCount: () => ctx.log.mutatingCount(),
    requests: (afterId) => ctx.log.records(afterId),
    lastRequestId: () => ctx.log.lastId(),
    resetCounts: () => ctx.log.reset(),
    killWatches: ({ mode = "reset" } = {}) => killWatches(ctx.watches, mode),
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      const address = server.address();
      resolve(`https://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`);
    });
  });
}

function killWatches(watches: Set<WatchStream>, mode: "reset" | "end"): number {
  const open = [...watches].filter((w) => !w.closed);
  for (const stream of open) {
    if (mode === "end") stream.end();
    else stream.reset();
  }
  return open.length;
}

function refuseUpgrade(socket: Duplex): void {
  const body = JSON.stringify(
    kubeStatus(501, "the kubeloop proxy does not forward upgraded connections (exec, attach, port-forward)"),
  );
  socket.end(
    "HTTP/1.1 501 Not Implemented\r\ncontent-type: application/json\r\nconnection: close\r\n" +
      `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
