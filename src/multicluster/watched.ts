/**
 * The informer under a provider that discovers clusters from objects of the hub (kubeconfig
 * Secrets, Cluster API `Cluster`s): it lists and watches them with kubeloop's informer, which
 * resumes and relists on its own after watch failures.
 */
import type { Logger } from "pino";
import type { KubeObject, ResourceType } from "../api/index.ts";
import { Informer, type InformerHandler, type InformerScope } from "../cache/index.ts";
import type { Client } from "../client/index.ts";
import { untilAborted } from "../clock/index.ts";

/** How long the first list of a provider's objects may take before its run fails. Default 60 s. */
export const providerSyncTimeoutMs = 60_000;

/**
 * Watches `type` in `scope` with `handler` until `signal` aborts, calling `ready` once the first
 * list is handled. Rejects when the first list does
 * not complete within `syncTimeoutMs` (the fleet fails its `readiness` and runs it again).
 */
export async function watchObjects<T extends KubeObject>(
  client: Client,
  type: ResourceType<T>,
  scope: InformerScope,
  handler: InformerHandler<T>,
  watching: { signal: AbortSignal; logger: Logger; ready: () => void; syncTimeoutMs?: number },
): Promise<void> {
  const informer = new Informer<T>(client, type, {
    ...scope,
    onError: (err, context) => watching.logger.warn({ err, kind: type.kind }, context),
  });
  informer.addHandler(handler);
  const running = informer.start(watching.signal);
  try {
    await informer.waitForSync(watching.signal, watching.syncTimeoutMs ?? providerSyncTimeoutMs);
    watching.ready();
    await untilAborted(watching.signal);
  } finally {
    await informer.stop();
    await running;
  }
}
