/**
 * An operator, declared once: its name, the kinds it serves, and how it builds its controllers.
 * From that declaration kubeloop runs it (`kubeloop run`, {@link runOperator}) and derives its
 * CRDs, least-privilege RBAC and deployment manifests (`kubeloop generate`, {@link manifestsOf}).
 */
import pino from "pino";
import { Client, type ClusterConnection, type LoadConfigOptions } from "../client/index.ts";
import type { ControllerDeclaration } from "../controller/index.ts";
import { Manager, type ManagerOptions, runManager } from "../manager/index.ts";
import {
  type AnyKind,
  controllerPermissions,
  operatorManifests,
  type PermissionRequest,
  type PermissionTarget,
} from "../schema/index.ts";

/** What an operator is. */
export interface OperatorDefinition {
  /** Name of the operator: field manager, event source, Lease, Deployment and RBAC names. */
  name: string;
  /** Kinds whose CRDs ship with the operator. */
  kinds: readonly AnyKind[];
  /** Builds the operator's controllers on `manager`, e.g. `controller(manager).for(Widget)...`. */
  setup(manager: Manager): void | Promise<void>;
  /** Namespace the operator is deployed to. Default: its name. */
  namespace?: string;
  /** Watch and be permitted in only this namespace (Role instead of ClusterRole). */
  watchNamespace?: string;
  /** Permissions beyond what the controllers declare (kinds a reconciler reads through the client). */
  permissions?: readonly PermissionRequest[];
  /** Container image of the operator, for the Deployment. */
  image?: string;
}

/** A declared operator. */
export interface Operator extends Required<Pick<OperatorDefinition, "name" | "kinds" | "setup">> {
  readonly definition: OperatorDefinition;
}

/**
 * Declares an operator.
 *
 * @example
 * ```ts
 * export default defineOperator({
 *   name: "widgets",
 *   kinds: [Widget],
 *   setup: (manager) => void controller(manager).for(Widget).owns(ConfigMap).reconcile(reconcileWidget),
 * });
 * ```
 */
export function defineOperator(definition: OperatorDefinition): Operator {
  return { name: definition.name, kinds: definition.kinds, setup: definition.setup, definition };
}

const offlineConnection: ClusterConnection = {
  server: "https://offline.invalid",
  namespace: "default",
  source: "kubeconfig",
  tls: { insecure: false },
  credentials: { get: async () => ({ headers: {}, identity: "offline" }), invalidate: () => {} },
};

/** The controllers an operator builds, without connecting to a cluster. */
export async function declarationsOf(operator: Operator): Promise<ControllerDeclaration[]> {
  const manager = await Manager.create({
    name: operator.name,
    client: new Client(offlineConnection),
    metrics: false,
    health: false,
    logger: pino({ level: "silent" }),
  });
  await operator.setup(manager);
  return manager.controllers.map((c) => (c as unknown as { declaration: ControllerDeclaration }).declaration);
}

/** Everything the operator may do: what its controllers declare, plus its extra permissions. */
export async function permissionsOf(operator: Operator): Promise<PermissionRequest[]> {
  const declared = (await declarationsOf(operator)).flatMap((d) =>
    controllerPermissions({
      primary: d.primary,
      owns: d.owns as PermissionTarget[],
      watches: d.watches as PermissionTarget[],
    }),
  );
  return [...declared, ...(operator.definition.permissions ?? [])];
}

/** Deployment files (CRDs, Namespace, ServiceAccount, RBAC, Deployment, kustomization, Dockerfile) by file name. */
export async function manifestsOf(
  operator: Operator,
  overrides: { image?: string; namespace?: string } = {},
): Promise<Map<string, string>> {
  const { definition } = operator;
  return operatorManifests({
    name: operator.name,
    namespace: overrides.namespace ?? definition.namespace ?? operator.name,
    image: overrides.image ?? definition.image ?? `${operator.name}:latest`,
    kinds: operator.kinds,
    permissions: await permissionsOf(operator),
    watchNamespace: definition.watchNamespace,
    leaderElection: true,
  });
}

/** Options of {@link runOperator}. */
export interface RunOptions extends Partial<Omit<ManagerOptions, "name">> {
  /** Where to load cluster credentials from (default: in-cluster, else KUBECONFIG). */
  config?: LoadConfigOptions;
}

/** Runs an operator until SIGTERM/SIGINT: creates a manager, builds the controllers, starts it. */
export async function runOperator(operator: Operator, options: RunOptions = {}): Promise<void> {
  const manager = await Manager.create({
    namespace: operator.definition.watchNamespace,
    ...options,
    name: operator.name,
  });
  await operator.setup(manager);
  await runManager(manager);
}
