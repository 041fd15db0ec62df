import {
  type ControllerDeclaration,
  type PermissionRequest,
  recordDeclarations,
  type WatchedKind,
} from "../controller/index.ts";
import type { Operator } from "../operator/index.ts";
import { shardLabelWebhooks } from "../operator/index.ts";
import { helmChart } from "./chart.ts";
import type { DockerfileOptions } from "./dockerfile.ts";
import { type OperatorManifestOptions, operatorManifests } from "./manifests.ts";
import { type ControllerPermissionOptions, controllerPermissions, watchPermissions } from "./permissions.ts";

import type { WebhookCertificates } from "./webhooks.ts";

/** The controllers an operator builds, as declared by its `setup`, without connecting to a cluster. */
export function declarationsOf(operator: Operator): Promise<ControllerDeclaration[]> {
  return recordDeclarations(operator.setup, operator.definition.watchNamespace);
}

/**
 * What one declared controller needs: its primary kind, the kinds it owns and watches (a watch
 * confined to a namespace, only there), events, and leader election when asked.
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
  const inNamespace = declaration.watches.filter((kind) => kind.scope?.namespace !== undefined);
  return [
    ...controllerPermissions({
      ...options,
      primary: declaration.primary.type,
      owns: types(declaration.owns),
      watches: types(declaration.watches.filter((kind) => !inNamespace.includes(kind))),
    }),
    // A watch confined to a namespace (`{ scope: { namespace } }`) reads only there: a Role of it.
    ...inNamespace.flatMap(({ type, scope }) =>
      watchPermissions(type).map((request) => ({ ...request, namespace: scope?.namespace })),
    ),
  ];
}

/** Everything the operator may do: what its controllers declare, plus its extra permissions. */
export async function permissionsOf(operator: Operator): Promise<PermissionRequest[]> {
  return permissionsFrom(operator, await declarationsOf(operator));
}

/** What its controllers `declared` may do, plus the operator's extra permissions. */
function permissionsFrom(
  operator: Operator,
  declared: readonly ControllerDeclaration[],
): PermissionRequest[] {
  return [...declared.flatMap((d) => declaredPermissions(d)), ...(operator.definition.permissions ?? [])];
}

/** What `kubeloop generate`'s flags may change in what an operator's declaration gives. */
export interface ManifestOverrides {
  image?: string;
  namespace?: string;
  dockerfile?: DockerfileOptions;
  replicas?: number;
  sharding?: OperatorManifestOptions["sharding"];
  webhookCerts?: WebhookCertificates;
}

/** The options of `operatorManifests` (and `helmChart`) for an operator, with `overrides`. */
async function manifestOptionsOf(
  operator: Operator,
  overrides: ManifestOverrides,
): Promise<OperatorManifestOptions> {
  const { definition } = operator;
  const declared = await declarationsOf(operator);
  // Sharded (the gate's state is learned at run time), an operator with webhooks serves the shard label ones too.
  const webhooks = [
    ...(definition.webhooks ?? []),
    ...shardLabelWebhooks(definition, overrides.sharding, declared),
  ];
  return {
    name: operator.name,
    namespace: overrides.namespace ?? definition.namespace ?? operator.name,
    image: operatorImage(operator, overrides.image),
    kinds: operator.kinds,
    extras: definition.manifests?.() ?? [],
    permissions: permissionsFrom(operator, declared),
    watchNamespace: definition.watchNamespace,
    leaderElection: true,
    ...(overrides.dockerfile ? { dockerfile: overrides.dockerfile } : {}),
    ...(overrides.replicas === undefined ? {} : { replicas: overrides.replicas }),
    ...(overrides.sharding ? { sharding: overrides.sharding } : {}),
    ...(webhooks.length
      ? { webhooks: { webhooks, certificates: overrides.webhookCerts ?? "cert-manager" } }
      : {}),
  };
}

/**
 * Deployment files (CRDs, the operator's other `manifests`, Namespace, ServiceAccount, RBAC,
 * Deployment, kustomization, Dockerfile, and for its webhooks their Service, configurations and
 * certificate, by `cert-manager` unless `webhookCerts` says `self`) by file name.
 */
export async function manifestsOf(
  operator: Operator,
  overrides: ManifestOverrides = {},
): Promise<Map<string, string>> {
  return operatorManifests(await manifestOptionsOf(operator, overrides));
}

/**
 * The operator's Helm chart (see `helmChart`), file name → text: the manifests of
 * {@link manifestsOf}, whose `overrides` become the chart's default values.
 */
export async function helmChartOf(
  operator: Operator,
  overrides: ManifestOverrides = {},
): Promise<Map<string, string>> {
  return helmChart(await manifestOptionsOf(operator, overrides));
}

/** The image the operator's Deployment runs: `override`, else the definition's, else `<name>:latest`. */
export function operatorImage(operator: Operator, override?: string): string {
  return override ?? operator.definition.image ?? `${operator.name}:latest`;
}
