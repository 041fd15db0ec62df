/**
 * The runner's own connection to the apiserver (direct, not through the counting proxy): raw
 * undici with the admin certificate, for creating, changing and deleting the benchmark's objects
 * and for watching them from outside. Independent of every contender, kubeloop included.
 */
import { Pool } from "undici";
import type { Cluster } from "../../../src/cluster/index.ts";
import { upstreamFromKubeconfig } from "../../../src/testing/proxy/index.ts";
import { API_VERSION, GROUP, KIND, NAMESPACE, PLURAL, VERSION } from "../shared/widget.ts";

export const widgetsPath = `/apis/${GROUP}/${VERSION}/namespaces/${NAMESPACE}/${PLURAL}`;
export const configMapsPath = `/api/v1/namespaces/${NAMESPACE}/configmaps`;

class TooManyRequests extends Error {}

export class Kube {
  readonly pool: Pool;

  constructor(cluster: Cluster) {
    const up = upstreamFromKubeconfig(cluster.kubeconfig);
    this.pool = new Pool(up.server, {
      connect: { ca: up.ca, cert: up.cert, key: up.key, servername: "localhost" },
      connections: 24,
    });
  }

  /** One request; a 429 (e.g. a new CRD's watch cache still initialising) is retried for up to 60 s. */
  async call<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    contentType = "application/json",
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#call<T>(method, path, body, contentType);
      } catch (err) {
        if (!(err instanceof TooManyRequests) || attempt >= 60) throw err;
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }

  async #call<T>(method: string, path: string, body: unknown, contentType: string): Promise<T> {
    const res = await this.pool.request({
      method: method as "GET",
      path,
      headers: { accept: "application/json", ...(body === undefined ? {} : { "content-type": contentType }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      headersTimeout: 120_000,
      bodyTimeout: 120_000,
    });
    const text = await res.body.text();
    if (res.statusCode === 429) throw new TooManyRequests(text);
    if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 300)}`);
    return JSON.parse(text) as T;
  }

  async createNamespace(): Promise<void> {
    await this.call("POST", "/api/v1/namespaces", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: NAMESPACE },
    });
  }

  /** Runs `fn` for 0..n-1 with `concurrency` in flight. */
  async each(n: number, concurrency: number, fn: (i: number) => Promise<unknown>): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < n) await fn(next++);
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
  }

  createWidget(name: string, message: string): Promise<unknown> {
    return this.call("POST", widgetsPath, {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: { name },
      spec: { message },
    });
  }

  patchMessage(name: string, message: string): Promise<unknown> {
    return this.call(
      "PATCH",
      `${widgetsPath}/${name}`,
      { spec: { message } },
      "application/merge-patch+json",
    );
  }

  deleteConfigMap(name: string): Promise<unknown> {
    return this.call("DELETE", `${configMapsPath}/${name}`);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/** The i-th Widget's name. */
export const widgetName = (i: number) => `w-${String(i).padStart(5, "0")}`;
