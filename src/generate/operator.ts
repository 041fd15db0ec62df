/**
 * What an operator's declaration implies for a cluster: the permissions its controllers need and
 * the files that deploy it (CRDs, the other objects it ships, RBAC, Deployment, kustomization,
 * Dockerfile).
 */
import type { KubeObject } from "../api/index.ts";
import { InformerCache } from "../cache/index.ts";
import type {
  ControllerDeclaration,
  ControllerHost,
  ControllerSpec,
  WatchedKind,
} from "../controller/index.ts";
import type { Operator } from "../operator/index.ts";
import type { WatchClient } from "../watch/index.ts";
import type { DockerfileOptions } from "./dockerfile.ts";
import { operatorManifests } from "./manifests.ts";
import { type ControllerPermissionOptions, controllerPermissions } from "./permissions.ts";
import type { PermissionRequest } from "./rbac.ts";

/** What the cache of a {@link RecordingHost} would list and watch with: nothing, it never starts. */
const neverStarted: WatchClient = {
  listPage: () => Promise.reject(new Error("a recording host's cache never lists")),
  watchStream: () => Promise.reject(new Error("a recording host's cache never watches")),
};

/** A host that runs nothing: it keeps the declarations an operator's `setup` hands it. */
class RecordingHost implements ControllerHost {
  readonly cache: InformerCache;
  readonly declarations: ControllerDeclaration[] = [];

  constructor(namespace: string | undefined) {
    this.cache = new InformerCache(neverStarted, { namespace });
  }

  addController<T extends KubeObject>(spec: ControllerSpec<T>): void {
    this.declarations.push(spec.declaration);
  }
}

/** The controllers an operator builds, as declared by its `setup`, without connecting to a cluster. */
export async function declarationsOf(operator: Operator): Promise<ControllerDeclaration[]> {
  const host = new RecordingHost(operator.definition.watchNamespace);
  await operator.setup(host);
  return host.declarations;
}

/**
 * What one declared controller needs: its primary kind, the kinds it owns and watches, events,
 * and leader election when asked.
 *
 * @example
 * ```ts
 * const declared = controller(manager).for(Widget).owns(ConfigMap).reconcile(reconcileWidget);
 * rbacFor(declaredPermissions(declared, { leaderElection: { namespace: "widgets" } }), rbacOptions);
 * ```
 */
export function declaredPermissions(
  declaration: ControllerDeclaration,
  options: Pick<ControllerPermissionOptions, "events" | "leaderElection"> = {},
): PermissionRequest[] {
  const types = (kinds: readonly WatchedKind[]) => kinds.map((kind) => kind.type);
  return controllerPermissions({
    ...options,
    primary: declaration.primary.type,
    owns: types(declaration.owns),
    watches: types(declaration.watches),
  });
}

/** Everything the operator may do: what its controllers declare, plus its extra permissions. */
export async function permissionsOf(operator: Operator): Promise<PermissionRequest[]> {
  const declared = (await declarationsOf(operator)).flatMap((d) => declaredPermissions(d));
  return [...declared, ...(operator.definition.permissions ?? [])];
}

/**
 * Deployment files (CRDs, the operator's other `manifests`, Namespace, ServiceAccount, RBAC,
 * Deployment, kustomization, Dockerfile) by file name.
 */
export async function manifestsOf(
  operator: Operator,
  overrides: { image?: string; namespace?: string; dockerfile?: DockerfileOptions } = {},
): Promise<Map<string, string>> {
  const { definition } = operator;
  return operatorManifests({
    name: operator.name,
    namespace: overrides.namespace ?? definition.namespace ?? operator.name,
    image: operatorImage(operator, overrides.image),
    kinds: operator.kinds,
    extras: definition.manifests?.() ?? [],
    permissions: await permissionsOf(operator),
    watchNamespace: definition.watchNamespace,
    leaderElection: true,
    ...(overrides.dockerfile ? { dockerfile: overrides.dockerfile } : {}),
  });
}

/** The image the operator's Deployment runs: `override`, else the definition's, else `<name>:latest`. */
export function operatorImage(operator: Operator, override?: string): string {
  return override ?? operator.definition.image ?? `${operator.name}:latest`;
}
