/**
 * The webhook server: HTTPS on a port of its own (9443, as controller-runtime's), serving the
 * declared admission webhooks at their paths and conversions at `/convert`. It needs no
 * leadership and no synced cache, so a manager serves it on every replica from the start: the
 * apiserver calls whichever replica its Service picks, and a conversion webhook must answer
 * before the caches of its kind can sync.
 */
import type { FSWatcher } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { finished } from "node:stream/promises";
import { Registry } from "prom-client";
import type { Client } from "../client/index.ts";
import { type Clock, systemClock } from "../clock/index.ts";
import type { KeyPair } from "../tls/index.ts";
import type { AdmissionWebhook, WebhookCache } from "./admission.ts";
import { type CertificateFiles, readKeyPair, type ServingTls, watchFiles } from "./certificates.ts";
import type { ConversionWebhook } from "./conversion.ts";
import { BadWebhookRequestError, WebhookListenError } from "./errors.ts";
import { failureStatus, readJson, sendJson } from "./internal/http.ts";
import { type Route, routesOf } from "./internal/routes.ts";
import { stderrLogger, type WebhookLogger } from "./logger.ts";
import { WebhookMetrics } from "./metrics.ts";

/** A declared webhook: from `validating`, `defaulting` or `conversion`. */
export type Webhook = AdmissionWebhook | ConversionWebhook;

/** The conversions among `webhooks`. */
export function conversionsOf(webhooks: readonly Webhook[] = []): ConversionWebhook[] {
  return webhooks.filter((w): w is ConversionWebhook => w.type === "conversion");
}

/** The admission webhooks (validating and mutating) among `webhooks`. */
export function admissionsOf(webhooks: readonly Webhook[] = []): AdmissionWebhook[] {
  return webhooks.filter((w): w is AdmissionWebhook => w.type !== "conversion");
}

/** Options of a {@link WebhookServer}. */
export interface WebhookServerOptions {
  readonly webhooks: readonly Webhook[];
  /**
   * The serving certificate and key: PEM, or files (a mounted Secret's `tls.crt` and `tls.key`)
   * read again when they change, without a restart.
   */
  readonly tls: ServingTls;
  /** The client handlers get (`ctx.client`); pass one that is not fenced by leadership. */
  readonly client: Client;
  /** The cache handlers read (`ctx.cache`). */
  readonly cache: WebhookCache;
  /** Default 9443; 0 picks a free port. */
  readonly port?: number;
  /** Default: every interface. */
  readonly host?: string;
  /** Where the `controller_runtime_webhook_*` metrics are registered. Default: a registry of its own. */
  readonly registry?: Registry;
  /**
   * The largest body taken, in bytes. Default 7 MiB for an AdmissionReview (controller-runtime's
   * limit; an object is at most 3 MiB, and an update carries two) and 64 MiB for a
   * ConversionReview (the apiserver converts a list in one review).
   */
  readonly maxBodyBytes?: { readonly admission?: number; readonly conversion?: number };
  /** Times handler timeouts and latencies. Default the system clock. */
  readonly clock?: Clock;
  /** Default: failures to stderr. */
  readonly logger?: WebhookLogger;
}

const mebibyte = 1024 * 1024;

function secureContext(pair: KeyPair) {
  return { cert: pair.certPem, key: pair.keyPem, minVersion: "TLSv1.2" as const };
}

/** The request's controller: aborted when the caller closes the connection before the answer is sent. */
function requestController(res: ServerResponse): AbortController {
  const controller = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished)
      controller.abort(new Error("the caller closed the connection before the answer"));
  });
  return controller;
}

/**
 * How long an idle connection of a caller stays open: longer than the apiserver keeps its idle
 * connections (client-go's transport: 90 s), so that the apiserver, not this server, closes them.
 * Node's default of 5 s let a call race the server's close of its idle connection: the apiserver
 * wrote an AdmissionReview into a closing socket (`write: broken pipe`) and, a POST being not
 * retried, failed the user's create with a 500 (seen in the sharded myproxy e2e under load).
 * controller-runtime's server (Go's `http.Server`, no `IdleTimeout`) never closes them first either.
 */
export const idleConnectionMs = 120_000;

/**
 * Serves webhooks over HTTPS. A handler that throws or times out is answered with a refusal
 * (code 500) naming the webhook, logged and counted; a body that is no review is answered with a
 * metav1.Status (400, 413 or 415). Metrics carry controller-runtime's names.
 *
 * @example
 * ```ts
 * const server = new WebhookServer({
 *   webhooks: [validating(Widget, validateWidget), conversion(Widget, widgetVersions)],
 *   tls: {
 *     certFile: "/tmp/k8s-webhook-server/serving-certs/tls.crt",
 *     keyFile: "/tmp/k8s-webhook-server/serving-certs/tls.key",
 *   },
 *   client,
 *   cache,
 *   registry,
 * });
 * const { port } = await server.listen();
 * // ...
 * await server.close();
 * ```
 */
export class WebhookServer {
  readonly #options: WebhookServerOptions;
  readonly #routes: ReadonlyMap<string, Route>;
  readonly #metrics: WebhookMetrics;
  readonly #clock: Clock;
  readonly #logger: WebhookLogger;
  #server: Server | undefined;
  #certificate: KeyPair | undefined;
  #watchers: FSWatcher[] = [];
  #closing = false;
  /** Requests being answered, and who waits for there to be none. */
  #inFlight = 0;
  #drained: (() => void) | undefined;

  /** Checks the webhooks (two may not claim one path) and registers the metrics; serves nothing yet. */
  constructor(options: WebhookServerOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? stderrLogger;
    this.#metrics = new WebhookMetrics(options.registry ?? new Registry());
    const deps = { ...options, clock: this.#clock, logger: this.#logger, metrics: this.#metrics };
    this.#routes = routesOf(options.webhooks, deps, {
      admission: options.maxBodyBytes?.admission ?? 7 * mebibyte,
      conversion: options.maxBodyBytes?.conversion ?? 64 * mebibyte,
    });
  }

  /** The paths served, e.g. `/validate-example-com-v1-widget` and `/convert`. */
  get paths(): readonly string[] {
    return [...this.#routes.keys()];
  }

  /** True while the server takes connections. */
  get listening(): boolean {
    return this.#server?.listening ?? false;
  }

  /**
   * Reads the certificate, starts serving, and resolves with the port (call once). Rejects with
   * {@link WebhookListenError} when it cannot listen (the port is in use, say).
   */
  async listen(): Promise<{ port: number }> {
    const { tls, port = 9443, host } = this.#options;
    this.#certificate = await readKeyPair(tls);
    const server = createServer(secureContext(this.#certificate), (req, res) => void this.#serve(req, res));
    server.keepAliveTimeout = idleConnectionMs;
    this.#server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", (err) => reject(new WebhookListenError(host, port, err)));
      server.listen({ port, host }, resolve);
    });
    if ("certFile" in tls) this.#watchers = watchFiles([tls.certFile, tls.keyFile], () => this.#reload(tls));
    return { port: (server.address() as AddressInfo).port };
  }

  /**
   * Stops taking connections and resolves once the requests in flight are answered (each within
   * its webhook's timeout); idle connections close at once, busy ones after their answer, and any
   * left then (a caller connected that sent no request yet) are closed.
   */
  async close(): Promise<void> {
    for (const watcher of this.#watchers) watcher.close();
    const server = this.#server;
    if (!server) return;
    this.#closing = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    if (this.#inFlight > 0) await new Promise<void>((resolve) => (this.#drained = resolve));
    server.closeAllConnections();
    await closed;
  }

  async #reload(files: CertificateFiles): Promise<void> {
    try {
      const pair = await readKeyPair(files);
      if (pair.certPem === this.#certificate?.certPem && pair.keyPem === this.#certificate.keyPem) return;
      this.#server?.setSecureContext(secureContext(pair));
      this.#certificate = pair;
      this.#logger.info({ certFile: files.certFile }, "webhook server: serving certificate reloaded");
    } catch (err) {
      this.#logger.error(
        { err, ...files },
        "webhook server: the certificate files could not be loaded (one half written?); " +
          "serving the previous certificate until they change again",
      );
    }
  }

  async #serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", "https://webhook.invalid").pathname;
    const route = this.#routes.get(path);
    if (!route) {
      const served = this.paths.join(", ");
      sendJson(
        res,
        404,
        failureStatus(404, `no webhook is served at ${path}; served: ${served}`),
        this.#closing,
      );
      return;
    }
    this.#metrics.started(path);
    this.#inFlight++;
    const started = this.#clock.monotonicMs();
    const code = await this.#answer(route, req, res);
    this.#metrics.finished(path, code, (this.#clock.monotonicMs() - started) / 1000);
    // Counted until the answer is out, so that close() never cuts one short.
    await finished(res).catch(() => {});
    if (--this.#inFlight === 0) this.#drained?.();
  }

  /** Answers one request to `route`; resolves with the HTTP status sent. */
  async #answer(route: Route, req: IncomingMessage, res: ServerResponse): Promise<number> {
    try {
      if (req.method !== "POST") {
        throw new BadWebhookRequestError(
          405,
          `${req.method} is not served: the apiserver calls webhooks with POST`,
        );
      }
      const body = await readJson(req, route.maxBytes);
      return sendJson(res, 200, await route.answer(body, requestController(res)), this.#closing);
    } catch (err) {
      const status = err instanceof BadWebhookRequestError ? err.status : 500;
      const message = `webhook ${req.url}: ${(err as Error).message}`;
      this.#logger.error({ err, status, method: req.method }, message);
      return sendJson(res, status, failureStatus(status, message), this.#closing);
    }
  }
}
