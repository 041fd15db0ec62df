/**
 * The kubeconfig-Secret provider: clusters are Secrets of a hub namespace that a label selects,
 * each holding a kubeconfig (multicluster-runtime's kubeconfig provider). A Secret created engages
 * its cluster, one changed re-engages it, one deleted disengages it.
 */
import type { Logger } from "pino";
import pino from "pino";
import { Secret, type SecretObject } from "../api/index.ts";
import type { Client, ClusterConnection } from "../client/index.ts";
import { connectionFromKubeconfig, KubeconfigTexts } from "./kubeconfig.ts";
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
      return watchObjects(
        options.client,
        Secret,
        scopeOf(options),
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

/** One cluster of a kubeconfig Secret, read once: its connection, or why there is none. */
export type SecretCluster =
  | { readonly name: string; readonly connection: ClusterConnection }
  | { readonly name: string; readonly error: string };

/**
 * The clusters of the kubeconfig Secrets as they are now, read once (what the provider would
 * engage, without watching): for tools such as `kubeloop describe --fleet-namespace`.
 *
 * @example
 * ```ts
 * for (const cluster of await kubeconfigSecretClusters({ client: hub, namespace: "fleet" }))
 *   console.log(cluster.name, "connection" in cluster ? cluster.connection.server : cluster.error);
 * ```
 */
export async function kubeconfigSecretClusters(
  options: Omit<KubeconfigSecretOptions, "logger">,
): Promise<SecretCluster[]> {
  const { items } = await options.client.list(Secret, scopeOf(options));
  const key = options.key ?? "kubeconfig";
  const clusters = items.map(async (secret): Promise<SecretCluster> => {
    const name = secret.metadata.name ?? "";
    const text = kubeconfigOf(secret, key);
    if (text === undefined) return { name, error: `kubeconfig Secret has no key "${key}"` };
    return connectionFromKubeconfig(text).then(
      (connection) => ({ name, connection }),
      (err: unknown) => ({ name, error: `invalid kubeconfig: ${(err as Error).message}` }),
    );
  });
  return (await Promise.all(clusters)).sort((a, b) => a.name.localeCompare(b.name));
}

/** Where the Secrets are: the namespace, and the label selector (default `kubeloop.dev/kubeconfig=true`). */
function scopeOf(options: Pick<KubeconfigSecretOptions, "namespace" | "labelSelector">) {
  return {
    namespace: options.namespace,
    labelSelector: options.labelSelector ?? `${KUBECONFIG_SECRET_LABEL}=true`,
  };
}

/** The kubeconfig text under `key` of `secret`, if it has the key. */
function kubeconfigOf(secret: SecretObject, key: string): string | undefined {
  const data = secret.data?.[key];
  return data === undefined ? undefined : Buffer.from(data, "base64").toString("utf8");
}

/** Follows `secret`'s kubeconfig, or disengages its cluster when the key is missing. */
function follows(texts: KubeconfigTexts, secret: SecretObject, key: string): Promise<void> {
  const name = secret.metadata.name ?? "";
  const text = kubeconfigOf(secret, key);
  if (text === undefined) {
    texts.delete(name, `kubeconfig Secret has no key "${key}"`);
    return Promise.resolve();
  }
  return texts.set(name, text);
}
