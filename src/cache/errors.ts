import { type ResourceType, resourceOf } from "../api/index.ts";
import { ForbiddenError, KindNotFoundError, NotFoundError } from "../client/index.ts";
import { KubeloopError } from "../errors/index.ts";

/**
 * An informer did not sync within the cache's `syncTimeoutMs` (default 2 minutes, as
 * controller-runtime's `CacheSyncTimeout`). The message names the kind, the last list or watch
 * error (a 403 means the ServiceAccount may not list or watch it) and the fix. Code
 * `KL_CACHE_SYNC_TIMEOUT`.
 */
export class CacheSyncTimeoutError extends KubeloopError {
  /** `apiVersion/kind` of the informer. */
  readonly kind: string;

  constructor(type: ResourceType, namespace: string | undefined, timeoutMs: number, lastError: unknown) {
    const where = namespace ? ` in namespace ${namespace}` : "";
    super(
      "KL_CACHE_SYNC_TIMEOUT",
      `the cache of ${type.kind} (${type.apiVersion})${where} did not sync within ${timeoutMs / 1000} s: ` +
        likelyCause(type, lastError),
      { cause: lastError },
    );
    this.kind = `${type.apiVersion}/${type.kind}`;
  }
}

function likelyCause(type: ResourceType, lastError: unknown): string {
  const resource = resourceOf(type);
  if (lastError instanceof ForbiddenError) {
    return (
      `the apiserver refused to list or watch ${resource} (${lastError.message}). Grant the verbs ` +
      `list and watch on ${resource} to the operator's ServiceAccount: declare the kind (\`.owns()\` or ` +
      "`.watches()` on a controller, or the operator's `permissions`), rerun `kubeloop generate` and apply its RBAC."
    );
  }
  if (lastError instanceof KindNotFoundError) return lastError.message;
  if (lastError instanceof NotFoundError) {
    return `the apiserver does not serve ${resource} (${lastError.message}). If it is a custom resource, install its CRD.`;
  }
  if (lastError !== undefined) {
    const message = lastError instanceof Error ? lastError.message : String(lastError);
    return `its last list or watch failed (${message}); fix that, the informer keeps retrying.`;
  }
  return (
    "no list or watch failed, so either the list is still running (raise the cache's syncTimeoutMs " +
    "for a very large kind) or the cache was never started (start the manager, or call cache.start, before reading)."
  );
}

/**
 * An informer stopped before its first list was stored: waiting for it to sync is over, as
 * client-go's `WaitForCacheSync` returns false once its stop channel closes. A cache that removed
 * the informer (a shard's view moved onto a merged one) no longer waits for it. Code
 * `KL_INFORMER_STOPPED`.
 */
export class InformerStoppedError extends KubeloopError {
  constructor(type: ResourceType, namespace: string | undefined) {
    const where = namespace ? ` in namespace ${namespace}` : "";
    super(
      "KL_INFORMER_STOPPED",
      `the informer of ${type.kind} (${type.apiVersion})${where} stopped before it synced: ` +
        "it was stopped or its cache's signal aborted; read through a running cache",
    );
  }
}

/**
 * A relist option out of range: `periodMs` must be a finite number >= 0 (0 turns relisting off)
 * and `jitter` a fraction in [0, 1). Code `KL_CACHE_RELIST_OPTIONS`.
 */
export class InvalidRelistOptionsError extends KubeloopError {
  constructor(option: "periodMs" | "jitter", value: unknown) {
    const range =
      option === "periodMs" ? "a finite number of milliseconds >= 0 (0: off)" : "a fraction in [0, 1)";
    super("KL_CACHE_RELIST_OPTIONS", `relist ${option} must be ${range}, not ${String(value)}`);
  }
}

/**
 * A cached read of a kind the cache has no informer for, with the cache's
 * `failOnMissingInformer` on (controller-runtime's `ReaderFailOnMissingInformer`): rather than
 * start an informer that may cache a whole cluster, the read fails. Code `KL_CACHE_MISSING_INFORMER`.
 */
export class MissingInformerError extends KubeloopError {
  /** `apiVersion/kind` of the read. */
  readonly kind: string;

  constructor(type: ResourceType, namespace: string | undefined) {
    const where = namespace ? ` in namespace ${namespace}` : " in every namespace";
    super(
      "KL_CACHE_MISSING_INFORMER",
      `a cached read of ${type.kind} (${type.apiVersion}) would start an informer${where} that nothing ` +
        "declared, and the cache's failOnMissingInformer is on: declare the kind on a controller " +
        `(.watches(${type.kind}, map) or .owns(${type.kind})) so that it is cached from the start, ` +
        "or read it through the client (ctx.client.get / list) instead of the cache",
    );
    this.kind = `${type.apiVersion}/${type.kind}`;
  }
}

/**
 * A cache budget that is not a positive, finite number of bytes. Code `KL_CACHE_BUDGET`.
 */
export class InvalidCacheBudgetError extends KubeloopError {
  constructor(kind: string, budget: unknown) {
    super(
      "KL_CACHE_BUDGET",
      `the cache budget of ${kind} must be a positive number of bytes (e.g. 512 * 2 ** 20 for 512 MiB), not ${String(budget)}`,
    );
  }
}
