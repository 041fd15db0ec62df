/**
 * What the manager tells people about its caches: a log line per informer failure, a log line per
 * relist that found changes the watch had missed, one per kind whose shard selector the apiserver
 * ignored, and — in a cluster — a Warning event on the manager's own pod each time an informer
 * dies and restarts, so `kubectl describe pod` says why; and a line each time a kind's caches go
 * over their heap budget, or back under it.
 */
import type { Logger } from "pino";
import type { ObjectReference, ResourceType } from "../api/index.ts";
import type { BudgetCrossing, DivergedObject, InformerMetrics } from "../cache/index.ts";
import { KindNotFoundError } from "../client/index.ts";
import type { EventRecorder } from "../events/index.ts";

/** How many of the keys a relist repaired its log line names. */
const keysNamed = 10;

/** The manager's pod, from the downward-API variables of the generated Deployment; undefined outside a cluster. */
export function ownPod(env: NodeJS.ProcessEnv): ObjectReference | undefined {
  const { POD_NAME: name, POD_NAMESPACE: namespace, POD_UID: uid } = env;
  if (!name || !namespace) return undefined;
  return { apiVersion: "v1", kind: "Pod", namespace, name, ...(uid ? { uid } : {}) };
}

/**
 * The informer's metrics `hooks`, plus a Warning event `InformerRestarted` on `pod` each time the
 * informer of `type` dies and restarts; `hooks` unchanged without a pod.
 */
export function withPodEvents(
  hooks: InformerMetrics,
  type: ResourceType,
  pod: ObjectReference | undefined,
  recorder: () => Pick<EventRecorder, "warning">,
): InformerMetrics {
  if (!pod) return hooks;
  return {
    ...hooks,
    restart: (err, delayMs) => {
      hooks.restart?.(err, delayMs);
      const cause = err instanceof Error ? err.message : String(err);
      const note = `the ${type.kind} informer died (${cause}); restarting in ${Math.round(delayMs)} ms`;
      recorder().warning(pod, "InformerRestarted", "Watch", note);
    },
  };
}

/**
 * Adds to informers' metrics hooks one warning per kind, the first time an informer of that kind
 * drops an object from outside its shard: the apiserver ignored the shard selector, so every
 * replica receives the whole kind and filters it itself (counted by
 * `kubeloop_watch_outside_shard_total`). One warning per kind however many informers of it (one
 * per shard held) see it.
 */
export function shardFallbackWarnings(
  logger: Pick<Logger, "warn">,
): (hooks: InformerMetrics, type: ResourceType) => InformerMetrics {
  const warned = new Set<string>();
  return (hooks, type) => ({
    ...hooks,
    outsideShard: () => {
      hooks.outsideShard?.();
      const kind = `${type.apiVersion}/${type.kind}`;
      if (warned.has(kind)) return;
      warned.add(kind);
      logger.warn(
        { kind: type.kind },
        `the apiserver ignored the shard selector of ${type.kind} and sent objects of other shards: ` +
          "this replica filters them itself, receiving the whole kind; turn on the apiserver's " +
          "ShardedListAndWatch feature gate (Kubernetes 1.36+) so that each replica receives only its shards",
      );
    },
  });
}

/** One warning per relist that repaired the cache: how many changes the watch had missed, naming the first keys. */
export function logDivergence(
  logger: Pick<Logger, "warn">,
  type: ResourceType,
  found: readonly DivergedObject[],
): void {
  const count = (change: DivergedObject["change"]) => found.filter((f) => f.change === change).length;
  const named = found.slice(0, keysNamed).map((f) => `${f.change} ${f.key}`);
  const more = found.length > named.length ? `, and ${found.length - named.length} more` : "";
  logger.warn(
    { kind: type.kind, added: count("added"), updated: count("updated"), deleted: count("deleted") },
    `the periodic relist of ${type.kind} found ${found.length} change(s) its watch had missed ` +
      `(${named.join(", ")}${more}); the cache is repaired and the objects re-queued`,
  );
}

/** One warning per informer failure; a missing kind without a stack (its message names cause and fix). */
export function logInformerFailure(logger: Pick<Logger, "warn">, err: unknown, context: string): void {
  if (err instanceof KindNotFoundError)
    logger.warn({ code: err.code, kind: err.kind }, `${context}: ${err.message}`);
  else logger.warn({ err }, context);
}

/** A warning when a kind's caches went over their heap budget, an info line once back under it. */
export function logBudgetCrossing(
  logger: Pick<Logger, "warn" | "info">,
  { type, bytes, budget, exceeded }: BudgetCrossing,
): void {
  const fields = { kind: type.kind, apiVersion: type.apiVersion, bytes: Math.round(bytes), budget };
  const held = `the cache of ${type.kind} (${type.apiVersion}) holds an estimated ${mib(bytes)}`;
  if (!exceeded) {
    logger.info(fields, `${held}, back under its budget of ${mib(budget)}`);
    return;
  }
  logger.warn(
    fields,
    `${held}, over its budget of ${mib(budget)} (cache.budgets["${type.apiVersion}/${type.kind}"]): ` +
      "narrow what it caches (a namespace, a label selector, metadataOnly for a kind read only by name " +
      "and labels, a transform dropping fields), raise the budget, or give the operator more memory",
  );
}

function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}
