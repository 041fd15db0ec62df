/**
 * The manager's HTTP endpoints: `/healthz` (the process is alive), `/readyz` (caches synced,
 * controllers running) and `/metrics` (Prometheus text). Health and metrics may share a port
 * or use separate ones, as controller-runtime's :8081 and :8080.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";

/** A named check; a rejection or `false` fails the probe, and its message is shown. */
export type Check = () => boolean | Promise<boolean>;

/** What one server serves. */
export interface EndpointsOptions {
  health?: { healthz: Record<string, Check>; readyz: Record<string, Check> };
  metrics?: Registry;
}

async function probe(checks: Record<string, Check>, res: ServerResponse): Promise<void> {
  const results = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      try {
        return [name, await check()] as const;
      } catch {
        return [name, false] as const;
      }
    }),
  );
  const ok = results.every(([, passed]) => passed);
  res.writeHead(ok ? 200 : 500, { "content-type": "text/plain" });
  res.end(
    ok
      ? "ok"
      : results
          .map(([name, passed]) => `[${passed ? "+" : "-"}]${name} ${passed ? "ok" : "failed"}`)
          .join("\n"),
  );
}

async function route(options: EndpointsOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? "/").split("?")[0];
  if (options.health && (path === "/healthz" || path === "/readyz")) {
    return probe(path === "/healthz" ? options.health.healthz : options.health.readyz, res);
  }
  if (options.metrics && path === "/metrics") {
    const body = await options.metrics.metrics();
    res.writeHead(200, { "content-type": options.metrics.contentType });
    res.end(body);
    return;
  }
  res.writeHead(404).end("not found");
}

/** Starts a server on `host:port` (port 0 picks one); resolves with the server and its port. */
export async function serveEndpoints(
  host: string,
  port: number,
  options: EndpointsOptions,
): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    route(options, req, res).catch(() => res.writeHead(500).end("internal error"));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port };
}
