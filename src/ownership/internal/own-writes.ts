/**
 * Versions of a child that the controller's own later writes already replaced. One `ensureChild`
 * call may write a child twice (its claims merged, then the apply; an apply, then a take-over):
 * the watch event of the first write can start the next reconcile before the cache holds the
 * second, and that reconcile, seeing the child as it was in between, would write it again for
 * nothing. A cached version listed here is known to be behind: the event of the last write is on
 * its way, and the reconcile it brings looks again. As client-go's controller expectations
 * (`ReplicaSet` waits to observe its own creates), for the controller's own writes.
 */
import type { KubeObject } from "../../api/index.ts";

/** Keys remembered per informer; the oldest are forgotten first (a forgotten one costs a redundant write, no more). */
const maxPerInformer = 10_000;

const replaced = new WeakMap<object, Map<string, Set<string>>>();

/**
 * Records the resourceVersions one call's writes of the child under `key` answered, in order
 * (undefined for a write not made): all but the last are replaced by it.
 */
export function rememberWrites(
  informer: object,
  key: string,
  versions: readonly (string | undefined)[],
): void {
  const written = versions.filter((v): v is string => v !== undefined);
  const last = written.at(-1);
  const behind = new Set(written.filter((v) => v !== last));
  const keys = replaced.get(informer) ?? new Map<string, Set<string>>();
  replaced.set(informer, keys);
  keys.delete(key);
  if (behind.size === 0) return;
  keys.set(key, behind);
  if (keys.size > maxPerInformer) keys.delete(keys.keys().next().value as string);
}

/**
 * True when the cached `obj` under `key` is a version a later write of the controller's replaced.
 * Once the cache is past them, they are forgotten.
 */
export function isReplaced(informer: object, key: string, obj: KubeObject): boolean {
  const behind = replaced.get(informer)?.get(key);
  if (!behind) return false;
  const version = obj.metadata.resourceVersion;
  if (version !== undefined && behind.has(version)) return true;
  replaced.get(informer)?.delete(key);
  return false;
}
