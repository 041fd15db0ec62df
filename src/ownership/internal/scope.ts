/**
 * Which informer `ensureChild` reads a child from: the one its controller watches the kind with,
 * in the scope declared with `owns()`, so that no second (cluster-wide, unfiltered) informer starts.
 */
import type { KubeObject, ResourceType } from "../../api/index.ts";
import {
  type Informer,
  type InformerCache,
  type InformerScope,
  parseLabelSelector,
} from "../../cache/index.ts";
import type { OwnedKind } from "../../controller/index.ts";
import { ChildOutOfScopeError } from "../errors.ts";

/**
 * The informer of the first scope declared for `type` in `owned` that `child` fits; the cache's
 * default informer for the kind when none is declared. Throws {@link ChildOutOfScopeError} when
 * scopes are declared and the child fits none.
 */
export function childInformer<C extends KubeObject>(
  cache: InformerCache,
  owned: readonly OwnedKind[] | undefined,
  type: ResourceType<C>,
  child: KubeObject,
): Informer<C> {
  const declared = (owned ?? []).filter(
    (k) => k.type.apiVersion === type.apiVersion && k.type.kind === type.kind,
  );
  if (declared.length === 0) return cache.informer(type);
  const scopes = declared.map((k) => k.scope ?? cache.scopeFor(type));
  const scope = scopes.find((s) => fits(child, s));
  if (scope) return cache.informer(type, scope);
  const { namespace, name } = child.metadata;
  throw new ChildOutOfScopeError(
    `${type.kind} ${namespace ? `${namespace}/` : ""}${name}`,
    scopes.map(describe),
  );
}

/** True when an informer of `scope` would hold `child` (a field selector is left to the server). */
function fits(child: KubeObject, scope: InformerScope): boolean {
  const { namespace, labels } = child.metadata;
  if (scope.namespace && namespace && scope.namespace !== namespace) return false;
  return !scope.labelSelector || parseLabelSelector(scope.labelSelector).matches(labels);
}

function describe(scope: InformerScope): string {
  const parts = [
    `namespace ${scope.namespace || "(all)"}`,
    scope.labelSelector && `labels ${scope.labelSelector}`,
    scope.fieldSelector && `fields ${scope.fieldSelector}`,
  ];
  return parts.filter(Boolean).join(", ");
}
