/**
 * What an operator's declaration implies for a cluster: the permissions its controllers need and
 * the files that deploy it (CRDs, RBAC, Deployment, kustomization, Dockerfile).
 */
import pino from "pino";
import { Client, type ClusterConnection } from "../client/index.ts";
import type { ControllerDeclaration } from "../controller/index.ts";
import { Manager } from "../manager/index.ts";
import type { Operator } from "../operator/index.ts";
import { operatorManifests } from "./manifests.ts";
import { controllerPermissions } from "./permissions.ts";
import type { PermissionRequest, PermissionTarget } from "./rbac.ts";

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
