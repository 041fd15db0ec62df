/**
 * The manager's webhook server. It serves the declared webhooks on every replica, leader or not
 * (the apiserver calls whichever pod its Service picks), and from the start, before the caches
 * sync: a kind whose versions convert through the server cannot be listed until it answers. Its
 * certificate comes from a directory (a mounted Secret, e.g. cert-manager's), or the manager
 * makes one (self-managed); with a self-managed certificate the manager applies the webhook
 * configurations and the CRDs' conversion stanzas with its CA, and again whenever the CA changes.
 */
import type { FSWatcher } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import {
  CustomResourceDefinition,
  type KubeObject,
  MutatingWebhookConfiguration,
  type ResourceType,
  ValidatingWebhookConfiguration,
} from "../api/index.ts";
import type { Client } from "../client/index.ts";
import {
  admissionConfigurations,
  CA_FILE,
  certificateFilesIn,
  conversionPatches,
  type Webhook,
  type WebhookCache,
  type WebhookEndpoint,
  WebhookServer,
  watchFiles,
  writeSelfManagedCertificates,
} from "../webhook/index.ts";
import { WebhookConfigurationError } from "./errors.ts";
import type { Check } from "./server.ts";

/**
 * How the manager serves its webhooks (`ManagerOptions.webhookServer`).
 *
 * @example
 * ```ts
 * await Manager.create({ name: "widgets", webhooks: [widgetValidation], webhookServer: { port: 9443, certDir: "/tmp/k8s-webhook-server/serving-certs" } });
 * ```
 */
export interface WebhookServingOptions {
  /** Default: `0.0.0.0` in a cluster, `127.0.0.1` outside. */
  host?: string;
  /** Default 9443, as controller-runtime's; 0 picks a free port. */
  port?: number;
  /**
   * The directory of the serving certificate (`tls.crt`, `tls.key`), read again when its files
   * change. Default: none, and the manager makes a CA and a certificate (self-managed) for
   * 127.0.0.1, localhost and the webhook Service's DNS names, in a directory of its own.
   */
  certDir?: string;
  /** The certificate's file in `certDir`. Default `tls.crt`. */
  certName?: string;
  /** The key's file in `certDir`. Default `tls.key`. */
  keyName?: string;
  /**
   * Apply the webhook configurations and CRD conversion stanzas with the CA in `<certDir>/ca.crt`,
   * and again whenever that file changes. Default: true when the manager makes the certificate;
   * false with `certDir`, where cert-manager's CA injector sets the `caBundle`s.
   */
  injectCa?: boolean;
  /** Name of the Validating/MutatingWebhookConfiguration. Default: the manager's name. */
  configurationName?: string;
  /**
   * The operator's namespace: its webhook Service's, and, with kube-system, left out of admission.
   * Default: the client's default namespace (the pod's).
   */
  namespace?: string;
  /**
   * How the apiserver reaches the server. Default: outside a cluster `https://127.0.0.1:<port>`;
   * in one, the Service `<name>-webhook-service` in `namespace`, port 443.
   */
  endpoint?: WebhookEndpoint;
}

/** What the webhook server needs of the manager. */
export interface ManagerWebhookDeps {
  readonly name: string;
  /** The client handlers get and configurations are applied with: not fenced by leadership. */
  readonly client: Client;
  readonly cache: WebhookCache;
  readonly registry: Registry;
  readonly logger: Logger;
  readonly inCluster: boolean;
}

/** The webhook Service's name for an operator, as `kubeloop generate` writes it. */
export function webhookServiceName(name: string): string {
  return `${name}-webhook-service`;
}

/** Serves a manager's webhooks and, with a CA to inject, keeps their configurations pointing at it. */
export class ManagerWebhooks {
  readonly #webhooks: readonly Webhook[];
  readonly #options: WebhookServingOptions;
  readonly #deps: ManagerWebhookDeps;
  #server: WebhookServer | undefined;
  #port: number | undefined;
  #watchers: FSWatcher[] = [];
  #caPem: string | undefined;
  /** The directory of a self-managed certificate, removed on stop. */
  #ownDir: string | undefined;

  constructor(webhooks: readonly Webhook[], options: WebhookServingOptions, deps: ManagerWebhookDeps) {
    this.#webhooks = webhooks;
    this.#options = options;
    this.#deps = deps;
  }

  /** The port served on, once started. */
  get port(): number | undefined {
    return this.#port;
  }

  /** `/readyz`: the server takes connections. */
  readonly listening: Check = () => {
    if (!this.#server?.listening) throw new Error("the webhook server is not listening");
    return `listening on port ${this.#port}`;
  };

  /**
   * Serves the webhooks; then, with a CA to inject, applies the configurations and conversion
   * stanzas. Rejects with the server's `WebhookListenError` or a {@link WebhookConfigurationError}.
   */
  async start(): Promise<void> {
    const { certDir, certName, keyName, injectCa = certDir === undefined } = this.#options;
    const dir = certDir ?? (await this.#selfManaged());
    const deps = this.#deps;
    this.#server = new WebhookServer({
      webhooks: this.#webhooks,
      tls: certificateFilesIn(dir, certName, keyName),
      client: deps.client,
      cache: deps.cache,
      port: this.#options.port ?? 9443,
      host: this.#options.host ?? (deps.inCluster ? "0.0.0.0" : "127.0.0.1"),
      registry: deps.registry,
      logger: deps.logger,
    });
    this.#port = (await this.#server.listen()).port;
    deps.logger.info({ port: this.#port, paths: this.#server.paths }, "webhook server listening");
    if (!injectCa) return;
    const caFile = join(dir, CA_FILE);
    await this.#inject(await readFile(caFile, "utf8"));
    this.#watchers = watchFiles([caFile], () => this.#reinject(caFile));
  }

  /** Stops serving (requests in flight are answered first) and removes a self-managed certificate. */
  async stop(): Promise<void> {
    for (const watcher of this.#watchers) watcher.close();
    await this.#server?.close();
    if (this.#ownDir) await rm(this.#ownDir, { recursive: true, force: true });
  }

  #namespace(): string {
    return this.#options.namespace ?? this.#deps.client.defaultNamespace;
  }

  #endpoint(): WebhookEndpoint {
    if (this.#options.endpoint) return this.#options.endpoint;
    if (!this.#deps.inCluster) return { url: `https://127.0.0.1:${this.#port}` };
    return { service: { name: webhookServiceName(this.#deps.name), namespace: this.#namespace() } };
  }

  /** Makes a CA and serving certificate in a fresh directory; returns the directory. */
  async #selfManaged(): Promise<string> {
    const { name } = this.#deps;
    this.#ownDir = await mkdtemp(join(tmpdir(), `kubeloop-webhook-${name}-`));
    const service = `${webhookServiceName(name)}.${this.#namespace()}.svc`;
    const hosts = ["127.0.0.1", "localhost", service, `${service}.cluster.local`];
    await writeSelfManagedCertificates(this.#ownDir, `${name}-webhook`, hosts);
    return this.#ownDir;
  }

  /** Applies the configurations and conversion stanzas with `caPem` (server-side apply, forced). */
  async #inject(caPem: string): Promise<void> {
    const options = {
      name: this.#options.configurationName ?? this.#deps.name,
      endpoint: this.#endpoint(),
      caPem,
      excludedNamespaces: ["kube-system", this.#namespace()],
    };
    for (const configuration of admissionConfigurations(this.#webhooks, options)) {
      const type =
        configuration.kind === "ValidatingWebhookConfiguration"
          ? ValidatingWebhookConfiguration
          : MutatingWebhookConfiguration;
      await this.#apply(type as ResourceType, configuration);
    }
    for (const patch of conversionPatches(this.#webhooks, options)) {
      await this.#apply(CustomResourceDefinition as ResourceType, patch);
    }
    this.#caPem = caPem;
  }

  /**
   * Server-side applies `object` under a field manager of its own (`<name>-webhook-ca`), so that
   * a partial CRD takes nothing from the manager that installed the CRD, even one of the same name.
   */
  async #apply(type: ResourceType, object: KubeObject): Promise<void> {
    try {
      const fieldManager = `${this.#deps.name}-webhook-ca`;
      await this.#deps.client.apply(type, object, { force: true, fieldManager });
    } catch (err) {
      throw new WebhookConfigurationError(object.kind, String(object.metadata.name), err);
    }
  }

  /** After a change in the CA file's directory: applies again when the CA changed; logs a failure. */
  async #reinject(caFile: string): Promise<void> {
    try {
      const caPem = await readFile(caFile, "utf8");
      if (caPem === this.#caPem) return;
      await this.#inject(caPem);
      this.#deps.logger.info({ caFile }, "webhook CA changed: configurations and conversion stanzas updated");
    } catch (err) {
      this.#deps.logger.error(
        { err, caFile },
        "webhook CA changed but could not be applied; the apiserver may not trust the new certificate until it is",
      );
    }
  }
}
