/**
 * A forgotten `.owns()`: `ensureChild` of a kind its controller does not own works, but the
 * controller never hears of the child's changes or deletion, so nothing repairs it, and the RBAC
 * `kubeloop generate` derives grants nothing to write it. Warned once per controller and kind.
 */
import type { Logger } from "pino";
import type { ResourceType } from "../../api/index.ts";
import type { OwnedKind } from "../../controller/index.ts";

/** The kinds already warned about, per controller (its `owned` list, the same on every reconcile). */
const warned = new WeakMap<readonly OwnedKind[], Set<string>>();

/**
 * Warns through the logger `log` returns, once per `owned` list and kind, when `type` is not
 * among the kinds `owned` declares. Does nothing without `owned` (a context that does not come
 * from a controller). `log` is called only to warn: a reconcile's logger is built on first use.
 */
export function warnUnlessOwned(
  owned: readonly OwnedKind[] | undefined,
  type: ResourceType,
  log: () => Pick<Logger, "warn"> | undefined,
): void {
  if (!owned || owned.some((k) => sameKind(k.type, type))) return;
  const kinds = warned.get(owned) ?? new Set<string>();
  warned.set(owned, kinds);
  const kind = `${type.apiVersion}/${type.kind}`;
  if (kinds.has(kind)) return;
  const logger = log();
  if (!logger) return;
  kinds.add(kind);
  logger.warn(
    { kind: type.kind, apiVersion: type.apiVersion },
    `ensureChild of a ${type.kind} in a controller that does not own ${type.kind}: the controller never ` +
      "hears when such a child is changed or deleted, so nothing repairs it, and the RBAC `kubeloop generate` " +
      `writes does not allow creating it. Add .owns(${type.kind}) to the controller, then rerun \`kubeloop generate\`.`,
  );
}

function sameKind(a: ResourceType, b: ResourceType): boolean {
  return a.apiVersion === b.apiVersion && a.kind === b.kind;
}
