/**
 * The kubeconfig-Secret provider: clusters are Secrets of a hub namespace that a label selects,
 * each holding a kubeconfig (multicluster-runtime's kubeconfig provider). A Secret created engages
 * its cluster, one changed re-engages it, one deleted disengages it.
 */
import type { Logger } from "pino";
import pino from "pino";
import { Secret, type SecretObject } from "../api/index.ts";
import type { Client } from "../client/index.ts";
import { KubeconfigTexts } from "./kubeconfig.ts";
import type { ClusterProvider, ClusterSink } from "./provider.ts";
import { watchObjects } from "./watched.ts";

/** The label that marks a kubeconfig Secret by default. */
export const KUBECONFIG_SECRET_LABEL = "kubeloop.dev/kubeconfig";

/** Options of {@link kubeconfigSecretProvider}. */
export interface KubeconfigSecretOptions {
  /** A client of the hub, where the Secrets live. */
  client: Client;
  /** The hub namespace holding the Secrets. */
  namespace: string;
  /** Which Secrets are clusters. Default `kubeloop.dev/kubeconfig=true`. */
  labelSelector?: string;
  /** The data key holding the kubeconfig. Default `kubeconfig`. */
  key?: string;
  /** Logger for Secrets that hold no usable kubeconfig. Default: silent. */
  logger?: Logger;
}

/**
 * Discovers clusters from kubeconfig Secrets: the Secret's name is the cluster's.
 *
 * @example
 * ```ts
 * const provider = kubeconfigSecretProvider({ client: hub, namespace: "fleet" });
 * ```
 */
export function kubeconfigSecretProvider(options: KubeconfigSecretOptions): ClusterProvider {
  const key = options.key ?? "kubeconfig";
  const logger = options.logger ?? pino({ level: "silent" });
  return {
    name: "kubeconfig-secrets",
    run(sink: ClusterSink, signal: AbortSignal) {
      const texts = new KubeconfigTexts(sink, logger);
      const follow = (secret: SecretObject) => texts.track(follows(texts, secret, key));
      const scope = {
        namespace: options.namespace,
        labelSelector: options.labelSelector ?? `${KUBECONFIG_SECRET_LABEL}=true`,
      };
      return watchObjects(
        options.client,
        Secret,
        scope,
        {
          onAdd: follow,
          onUpdate: (_old, secret) => follow(secret),
          onDelete: (secret) => texts.delete(secret.metadata.name ?? "", "kubeconfig Secret deleted"),
        },
        { signal, logger, ready: () => texts.whenIdle(() => sink.ready()) },
      );
    },
  };
}

/** Follows `secret`'s kubeconfig, or disengages its cluster when the key is missing. */
function follows(texts: KubeconfigTexts, secret: SecretObject, key: string): Promise<void> {
  const name = secret.metadata.name ?? "";
  const data = secret.data?.[key];
  if (data === undefined) {
    texts.delete(name, `kubeconfig Secret has no key "${key}"`);
    return Promise.resolve();
  }
  return texts.set(name, Buffer.from(data, "base64").toString("utf8"));
}
