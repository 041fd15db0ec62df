/**
 * The handful of HTTPS requests the harness makes to its own apiserver (readiness, nodes,
 * service accounts), over one pooled connection with the admin credentials. The full client lives
 * in `src/client`; the harness stays independent of it so a broken client cannot hide behind a
 * broken cluster.
 */
import { Agent, request } from "undici";

/** Admin access to one apiserver. */
export class AdminApi {
  readonly #agent: Agent;
  readonly #server: string;

  constructor(server: string, tls: { ca: string; cert: string; key: string }) {
    this.#server = server;
    this.#agent = new Agent({ connect: { ...tls, servername: "localhost" }, connections: 4 });
  }

  /** Sends a request and returns the status code and the parsed JSON body (or text). */
  async call(
    method: "GET" | "POST",
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: unknown }> {
    const res = await request(`${this.#server}${path}`, {
      method,
      dispatcher: this.#agent,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    const text = await res.body.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return { status: res.statusCode, body: parsed };
  }

  /** True when `GET path` answers 200. */
  async ok(path: string): Promise<boolean> {
    return (await this.call("GET", path)).status === 200;
  }

  /** Closes the connection pool. */
  close(): Promise<void> {
    return this.#agent.close();
  }
}

/** An HTTPS GET that skips verification, for the self-signed health endpoints of KCM and the scheduler. */
export async function insecureHealthy(url: string): Promise<boolean> {
  const agent = new Agent({ connect: { rejectUnauthorized: false } });
  try {
    const res = await request(url, { dispatcher: agent, headersTimeout: 5000, bodyTimeout: 5000 });
    await res.body.dump();
    return res.statusCode === 200;
  } finally {
    await agent.close();
  }
}
