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
import { Counter, type Registry } from "prom-client";
import {
  CustomResourceDefinition,
  type KubeObject,
  type LabelSelector,
  type ResourceType,
} from "../api/index.ts";
import { type Client, ForbiddenError, NotFoundError } from "../client/index.ts";
import type { Clock } from "../clock/index.ts";
import { METRICS, promClientConfig } from "../metrics/index.ts";
import { Backoff } from "../watch/index.ts";
import type { WebhookCache } from "./admission.ts";
import { CA_FILE, certificateFilesIn, watchFiles, writeSelfManagedCertificates } from "./certificates.ts";
import {
  admissionConfigurations,
  type ConfigurationOptions,
  configurationNameOf,
  conversionPatches,
  type WebhookEndpoint,
} from "./configuration.ts";
import { WebhookConfigurationError } from "./errors.ts";
import { type AppliedWebhooks, configurationType, withdrawWebhooks } from "./internal/withdraw-webhooks.ts";
import { type AdmissionScope, checkNamespacesAdmitted } from "./selectors.ts";
import { admissionsOf, type Webhook, WebhookServer } from "./server.ts";
import { sharedCertificateAuthority } from "./shared-ca.ts";

/**
 * How the manager serves its webhooks (`ManagerOptions.webhookServer`).
 *
 * @example
 * ```ts
 * await Manager.create({
 *   name: "widgets",
 *   webhooks: [widgetValidation],
 *   webhookServer: { port: 9443, certDir: "/tmp/k8s-webhook-server/serving-certs" },
 * });
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
  /**
   * Name of the Validating/MutatingWebhookConfiguration. Default: the manager's name, and
   * `<name>-<namespace>` for a manager watching one namespace.
   */
  configurationName?: string;
  /**
   * Admit only objects in the namespaces this selects (with each webhook's own selector), e.g. a
   * test session's. A manager watching one namespace admits only that one anyway.
   */
  namespaceSelector?: LabelSelector;
  /**
   * The operator's namespace: its webhook Service's and its CA Secret's. Not left out of
   * admission: the operator's own objects are, for webhooks of built-in kinds, by their
   * `kubeloop.dev/operator` label. Default: the client's default namespace (the pod's).
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
  readonly clock: Clock;
  readonly inCluster: boolean;
  /** The one namespace the manager watches, if any. */
  readonly watchNamespace?: string;
}

/** The webhook Service's name for an operator, as `kubeloop generate` writes it. */
export function webhookServiceName(name: string): string {
  return `${name}-webhook-service`;
}

/**
 * How often applied configurations are applied again, to repair one deleted or changed by someone
 * else (an apply that changes nothing writes nothing), as cert-controller's rotator re-injects a
 * `caBundle` it sees changed.
 */
const REAPPLY_MS = 60_000;

/** Serves a manager's webhooks and, with a CA to inject, keeps their configurations pointing at it. */
export class ManagerWebhooks {
  readonly #webhooks: readonly Webhook[];
  readonly #options: WebhookServingOptions;
  readonly #deps: ManagerWebhookDeps;
  readonly #failures: Counter;
  #server: WebhookServer | undefined;
  #port: number | undefined;
  #watchers: FSWatcher[] = [];
  /** The CA last applied, and the one in the file, read when it changes. */
  #applied: string | undefined;
  #current: string | undefined;
  /** Stops the loop that keeps the configurations applied; `#wake` ends its wait early. */
  readonly #stopping = new AbortController();
  #wake = new AbortController();
  #keeping: Promise<void> = Promise.resolve();
  /** The directory of a self-managed certificate, removed on stop. */
  #ownDir: string | undefined;
  /** What was last applied (or tried), taken back on a stop outside a cluster. */
  #applying: AppliedWebhooks | undefined;

  /**
   * Throws `WebhookNamespaceError` when an admission webhook would be sent no request from the
   * namespaces the manager watches.
   */
  constructor(webhooks: readonly Webhook[], options: WebhookServingOptions, deps: ManagerWebhookDeps) {
    this.#webhooks = webhooks;
    this.#options = options;
    this.#deps = deps;
    checkNamespacesAdmitted(admissionsOf(webhooks), this.#scope());
    this.#failures = new Counter(promClientConfig(METRICS.webhookConfigurationFailures, deps.registry));
  }

  /** The port served on, once started. */
  get port(): number | undefined {
    return this.#port;
  }

  /** `/readyz`: the server takes connections. */
  readonly listening = (): string => {
    if (!this.#server?.listening) throw new Error("the webhook server is not listening");
    return `listening on port ${this.#port}`;
  };

  /** `/readyz`, with a CA to inject: the apiserver was given the CA the server's certificate is signed by. */
  readonly trusted = (): string => {
    // Before the CA file is read both are undefined: not ready until a first application.
    if (this.#applied === undefined)
      throw new Error("the webhook CA is not applied to the configurations yet");
    if (this.#current !== this.#applied) {
      throw new Error("the webhook CA changed and could not be applied to the configurations yet (retrying)");
    }
    return "configurations carry the serving CA";
  };

  /** Whether configurations are applied with the CA (self-managed certificates, or `injectCa`). */
  get injectsCa(): boolean {
    return this.#options.injectCa ?? this.#options.certDir === undefined;
  }

  /**
   * Serves the webhooks; then, with a CA to inject, applies the configurations and conversion
   * stanzas, and keeps them applied: again when the CA file changes and every minute, retrying a
   * failure with backoff. Rejects with the server's `WebhookListenError` or a
   * {@link WebhookConfigurationError} when the first application fails.
   */
  async start(): Promise<void> {
    const { certDir, certName, keyName } = this.#options;
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
    if (!this.injectsCa) return;
    const caFile = join(dir, CA_FILE);
    this.#current = await readFile(caFile, "utf8");
    await this.#inject(this.#current);
    this.#watchers = watchFiles([caFile], async () => {
      this.#current = await readFile(caFile, "utf8").catch(() => this.#current);
      this.#wake.abort();
    });
    this.#keeping = this.#keepApplied();
  }

  /**
   * Stops serving (requests in flight are answered first) and removes a self-managed certificate.
   * Outside a cluster, first takes back what it applied, which calls this process: it deletes its
   * configurations (left behind, they would refuse every create of the kinds they admit) and
   * points its conversion stanzas at the operator's Service, as deployed (see `withdrawWebhooks`).
   * In a cluster they stay: they call the Service, which the other replicas, or the next pod, serve.
   */
  async stop(): Promise<void> {
    for (const watcher of this.#watchers) watcher.close();
    this.#stopping.abort();
    await this.#keeping;
    if (this.#applying && !this.#deps.inCluster) {
      const deployed = conversionPatches(this.#webhooks, { endpoint: this.#serviceEndpoint() });
      const { client, logger } = this.#deps;
      await withdrawWebhooks(client, this.#applying, deployed, this.#fieldManager(), logger);
    }
    await this.#server?.close();
    if (this.#ownDir) await rm(this.#ownDir, { recursive: true, force: true });
  }

  #namespace(): string {
    return this.#options.namespace ?? this.#deps.client.defaultNamespace;
  }

  #endpoint(): WebhookEndpoint {
    if (this.#options.endpoint) return this.#options.endpoint;
    if (!this.#deps.inCluster) return { url: `https://127.0.0.1:${this.#port}` };
    return this.#serviceEndpoint();
  }

  /** The operator's webhook Service, as `kubeloop generate` writes it: where a deployment is called. */
  #serviceEndpoint(): WebhookEndpoint {
    return { service: { name: webhookServiceName(this.#deps.name), namespace: this.#namespace() } };
  }

  /**
   * Makes a serving certificate in a fresh directory, signed in a cluster by the CA the replicas
   * share (a Secret), outside one by a CA of its own; returns the directory.
   */
  async #selfManaged(): Promise<string> {
    const { name, client, inCluster } = this.#deps;
    const ca = inCluster ? await sharedCertificateAuthority(client, this.#namespace(), name) : undefined;
    this.#ownDir = await mkdtemp(join(tmpdir(), `kubeloop-webhook-${name}-`));
    const service = `${webhookServiceName(name)}.${this.#namespace()}.svc`;
    const hosts = ["127.0.0.1", "localhost", service, `${service}.cluster.local`];
    await writeSelfManagedCertificates(this.#ownDir, `${name}-webhook`, hosts, ca);
    return this.#ownDir;
  }

  /** The namespaces admission is limited to: the one watched, and `namespaceSelector`'s. */
  #scope(): AdmissionScope {
    const { watchNamespace } = this.#deps;
    const { namespaceSelector } = this.#options;
    return {
      ...(watchNamespace === undefined ? {} : { watchNamespace }),
      ...(namespaceSelector && { namespaceSelector }),
    };
  }

  /** The configurations' options: name, endpoint, CA, the namespaces admitted, the operator's own objects. */
  #configurationOptions(caPem: string): ConfigurationOptions {
    const { name, watchNamespace } = this.#deps;
    return {
      name: this.#options.configurationName ?? configurationNameOf(name, watchNamespace),
      operator: name,
      endpoint: this.#endpoint(),
      caPem,
      ...this.#scope(),
    };
  }

  /** Applies the configurations and conversion stanzas with `caPem` (server-side apply, forced). */
  async #inject(caPem: string): Promise<void> {
    const options = this.#configurationOptions(caPem);
    const configurations = admissionConfigurations(this.#webhooks, options);
    const conversions = conversionPatches(this.#webhooks, options);
    // Known before they are applied, so that a stop after a failed apply takes back those that were.
    this.#applying = { configurations, conversions };
    for (const configuration of configurations) {
      await this.#apply(configurationType(configuration.kind), configuration);
    }
    for (const patch of conversions) await this.#apply(CustomResourceDefinition as ResourceType, patch);
    this.#applied = caPem;
  }

  /**
   * The field manager the configurations are applied under, `<name>-webhook-ca`: a partial CRD
   * then takes nothing from the manager that installed the CRD, even one of the same name.
   */
  #fieldManager(): string {
    return `${this.#deps.name}-webhook-ca`;
  }

  /** Server-side applies `object` under {@link ManagerWebhooks.#fieldManager}. */
  async #apply(type: ResourceType, object: KubeObject): Promise<void> {
    try {
      await this.#deps.client.apply(type, object, { force: true, fieldManager: this.#fieldManager() });
    } catch (err) {
      throw webhookApplyError(object, err);
    }
  }

  /**
   * Applies the configurations again when the CA changes and every {@link REAPPLY_MS}; a failure
   * is logged, counted and retried with backoff, and fails `/readyz` while the CA applied is not
   * the current one. Ends on stop.
   */
  async #keepApplied(): Promise<void> {
    const { logger, clock } = this.#deps;
    const backoff = new Backoff(1000, REAPPLY_MS);
    let delay = REAPPLY_MS;
    while (!this.#stopping.signal.aborted) {
      this.#wake = new AbortController();
      const wait = AbortSignal.any([this.#stopping.signal, this.#wake.signal]);
      await clock.sleep(delay, wait).catch(() => {});
      if (this.#stopping.signal.aborted) return;
      const current = this.#current as string;
      const changed = current !== this.#applied;
      try {
        await this.#inject(current);
        backoff.reset();
        // A change read while applying is applied at once.
        delay = this.#current === current ? REAPPLY_MS : 0;
        if (changed) logger.info("webhook CA changed: configurations and conversion stanzas updated");
      } catch (err) {
        this.#failures.inc();
        delay = backoff.next();
        logger.error(
          { err, retryInMs: Math.round(delay) },
          changed
            ? "webhook CA changed but could not be applied; the apiserver does not trust the new certificate until it is"
            : "could not apply the webhook configurations again",
        );
      }
    }
  }
}

/**
 * The error of a failed apply of a webhook configuration or conversion stanza: a refusal the
 * operator's RBAC or a missing CRD explains becomes a {@link WebhookConfigurationError} naming
 * that fix; anything else (an apiserver that cannot be reached, a server error) is `err` itself,
 * whose message names its own cause and fix, rather than pointing at permissions that are fine.
 */
export function webhookApplyError(object: KubeObject, err: unknown): unknown {
  if (!(err instanceof ForbiddenError || err instanceof NotFoundError)) return err;
  return new WebhookConfigurationError(object.kind, String(object.metadata.name), err);
}
