/**
 * The manager's HTTP endpoints: `/healthz` (the process is alive), `/readyz` (caches synced,
 * controllers running) and `/metrics` (Prometheus text). Health and metrics may share a port
 * or use separate ones, as controller-runtime's :8081 and :8080 (or :8443, HTTPS, for secure
 * metrics, whose requests a guard checks first). The live page, when on, is served with the
 * probes, to loopback clients only (see `live.ts`).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createSecureServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";
import type { KeyPair } from "../tls/index.ts";
import { type LiveState, serveLive } from "./live.ts";

/**
 * A named check; a rejection or `false` fails the probe, and its message is shown. A string
 * passes, and is the detail `?verbose` shows (e.g. the shards a replica holds).
 */
export type Check = () => boolean | string | Promise<boolean | string>;

/** The answer to a request a {@link Guard} refuses: 401, 403, or 500 when it could not decide. */
export interface Denial {
  status: 401 | 403 | 500;
  message: string;
}

/** Decides whether a request may read `/metrics`: `undefined` lets it through. */
export type Guard = (req: IncomingMessage) => Promise<Denial | undefined>;

/**
 * What one server serves.
 *
 * @example
 * ```ts
 * const options: EndpointsOptions = {
 *   metrics: registry,
 *   tls: { certPem, keyPem },
 *   guard: async () => undefined,
 * };
 * ```
 */
export interface EndpointsOptions {
  health?: { healthz: Record<string, Check>; readyz: Record<string, Check> };
  metrics?: Registry;
  /** Serve HTTPS with this certificate and key (PEM) instead of plain HTTP. */
  tls?: KeyPair;
  /** Checks each `/metrics` request before it is served (health probes are never guarded). Default: none. */
  guard?: Guard;
  /** Serve the live page and its JSON, made by this function, under `/debug/kubeloop`. Default: not served. */
  live?: () => Promise<LiveState>;
  /** Told of a request that failed with a 500; the server goes on. */
  onError?: (err: unknown) => void;
}

/**
 * Runs `checks`: 200 `ok` when all pass, else 500 with a `[+]`/`[-]` line per check (as the
 * apiserver's probes answer); `verbose` (`?verbose`) lists the lines when all pass too.
 */
async function probe(checks: Record<string, Check>, res: ServerResponse, verbose: boolean): Promise<void> {
  const results = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      try {
        const result = await check();
        return {
          name,
          ok: result !== false,
          outcome: typeof result === "string" ? `ok: ${result}` : result ? "ok" : "failed",
        };
      } catch (err) {
        return { name, ok: false, outcome: `failed: ${err instanceof Error ? err.message : String(err)}` };
      }
    }),
  );
  const ok = results.every((result) => result.ok);
  res.writeHead(ok ? 200 : 500, { "content-type": "text/plain" });
  const lines = results.map((result) => `[${result.ok ? "+" : "-"}]${result.name} ${result.outcome}`);
  res.end(ok && !verbose ? "ok" : lines.join("\n"));
}

async function route(options: EndpointsOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://localhost");
  const path = url.pathname;
  if (options.health && (path === "/healthz" || path === "/readyz")) {
    const verbose = url.searchParams.has("verbose");
    return probe(path === "/healthz" ? options.health.healthz : options.health.readyz, res, verbose);
  }
  if (options.metrics && path === "/metrics") {
    const denial = await options.guard?.(req);
    if (denial) {
      res.writeHead(denial.status, { "content-type": "text/plain" }).end(denial.message);
      return;
    }
    const body = await options.metrics.metrics();
    res.writeHead(200, { "content-type": options.metrics.contentType });
    res.end(body);
    return;
  }
  if (options.live && (await serveLive(req, res, path, options.live))) return;
  res.writeHead(404).end("not found");
}

/**
 * Starts a server on `host:port` (port 0 picks one), HTTPS when `options.tls` is given; resolves
 * with the server and its port.
 *
 * @example
 * ```ts
 * const { server, port } = await serveEndpoints("127.0.0.1", 0, { metrics: manager.metrics.registry });
 * ```
 */
export async function serveEndpoints(
  host: string,
  port: number,
  options: EndpointsOptions,
): Promise<{ server: Server; port: number }> {
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    route(options, req, res).catch((err: unknown) => {
      options.onError?.(err);
      if (!res.headersSent) res.writeHead(500);
      res.end("internal error");
    });
  };
  // Like controller-runtime's secure serving: TLS 1.2 or later.
  const server = options.tls
    ? createSecureServer(
        { cert: options.tls.certPem, key: options.tls.keyPem, minVersion: "TLSv1.2" },
        handle,
      )
    : createServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port };
}
