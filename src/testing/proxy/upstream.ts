/**
 * The proxy's side towards the real apiserver, on undici: one connection pool that presents the
 * admin client certificate (for certificate callers, impersonated) and one that presents none
 * (for bearer-token and anonymous callers). Bodies stream both ways; nothing is buffered.
 */
import type { IncomingMessage } from "node:http";
import { createSecureContext } from "node:tls";
import { Agent, type Dispatcher, request } from "undici";

/** How to reach the real apiserver: its URL, the CA that signed its serving certificate, admin credentials. */
export interface UpstreamCredentials {
  /** e.g. `https://127.0.0.1:6443`. */
  server: string;
  /** PEM of the CA that signed the apiserver's serving certificate. */
  ca: string;
  /** PEM client certificate with the right to impersonate (e.g. in `system:masters`). */
  cert: string;
  /** PEM private key of `cert`. */
  key: string;
}

const hopByHop = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "expect",
]);

/** Headers of a message minus the hop-by-hop ones, every value kept (repeated headers stay repeated). */
export function endToEndHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string | string[]> {
  const connection = Object.entries(headers).find(([name]) => name.toLowerCase() === "connection")?.[1];
  const named = new Set(
    [connection ?? []]
      .flat()
      .flatMap((v) => v.split(","))
      .map((h) => h.trim().toLowerCase()),
  );
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value === undefined || hopByHop.has(lower) || named.has(lower)) continue;
    kept[lower] = Array.isArray(value) && value.length === 1 ? (value[0] as string) : value;
  }
  return kept;
}

/** What to send upstream. */
export interface UpstreamRequest {
  method: string;
  /** Path and query. */
  url: string;
  headers: Record<string, string | string[]>;
  /** The client's request, streamed as the body when it has one. */
  body: IncomingMessage;
  /** Present the admin client certificate. */
  asAdmin: boolean;
  signal: AbortSignal;
}

/** Connection pools to one apiserver. */
export class Upstream {
  readonly server: string;
  readonly #admin: Agent;
  readonly #bare: Agent;

  constructor(credentials: UpstreamCredentials) {
    this.server = credentials.server.replace(/\/+$/, "");
    // One TLS context per pool, not one per connection (tls.connect builds one from `ca`, `cert`
    // and `key` each time): it was 10 % of a conformance run's CPU in the kit's process.
    const admin = createSecureContext({ ca: credentials.ca, cert: credentials.cert, key: credentials.key });
    this.#admin = new Agent({ connect: { secureContext: admin } });
    this.#bare = new Agent({ connect: { secureContext: createSecureContext({ ca: credentials.ca }) } });
  }

  /** Sends a request; resolves with the status, headers and a streaming body once headers arrive. */
  send(req: UpstreamRequest): Promise<Dispatcher.ResponseData> {
    return request(`${this.server}${req.url}`, {
      method: req.method as Dispatcher.HttpMethod,
      headers: req.headers,
      body: hasBody(req.body) ? req.body : null,
      dispatcher: req.asAdmin ? this.#admin : this.#bare,
      signal: req.signal,
      headersTimeout: 0,
      bodyTimeout: 0,
    });
  }

  /** Closes every connection, in-flight requests included. */
  async close(): Promise<void> {
    await Promise.all([this.#admin.destroy(), this.#bare.destroy()]);
  }
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers["content-length"];
  return (length !== undefined && length !== "0") || req.headers["transfer-encoding"] !== undefined;
}
