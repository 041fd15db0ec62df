/**
 * ServiceAccount credentials for end-to-end tests: a short-lived token from the TokenRequest API,
 * written into a kubeconfig next to the cluster's server and CA, so code under test runs as the
 * ServiceAccount (with only its RBAC) instead of as the admin.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { parse, parseAllDocuments, stringify } from "yaml";
import {
  ClusterRole,
  ClusterRoleBinding,
  groupOf,
  type KubeObject,
  type ResourceType,
  Role,
  RoleBinding,
  ServiceAccount,
  SubjectAccessReview,
} from "../../../src/api/index.ts";
import type { Client } from "../../../src/client/index.ts";
import {
  manifestsOf,
  type PermissionRequest,
  permissionsOf,
  type RbacObjects,
  serviceAccountManifest,
} from "../../../src/generate/index.ts";
import type { Operator } from "../../../src/operator/index.ts";
import { eventually, kubeconfigPath, kubectl, onCleanup } from "../support.ts";

interface KubeconfigFile {
  clusters: { name: string; cluster: { server: string; "certificate-authority-data": string } }[];
}

interface TokenRequestAnswer {
  status: { token: string; expirationTimestamp: string };
}

/** Creates the ServiceAccount `name` in `namespace` with the admin client. */
export async function createServiceAccount(admin: Client, namespace: string, name: string): Promise<void> {
  await admin.create(ServiceAccount, serviceAccountManifest(name, namespace));
}

/** Asks the apiserver for a token of the ServiceAccount (`POST .../serviceaccounts/<sa>/token`). */
export async function requestToken(admin: Client, namespace: string, name: string): Promise<string> {
  const answer = await admin.request<TokenRequestAnswer>({
    method: "POST",
    verb: "create",
    path: `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`,
    body: {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec: { expirationSeconds: 3600 },
    },
  });
  return answer.status.token;
}

/**
 * Writes a kubeconfig that authenticates as the ServiceAccount (the run's server and CA, the
 * token, `namespace` as the context's default) and returns its path; removed when the test ends.
 */
export async function serviceAccountKubeconfig(
  t: TestContext,
  admin: Client,
  namespace: string,
  name: string,
): Promise<string> {
  const adminConfig = parse(await readFile(kubeconfigPath(), "utf8")) as KubeconfigFile;
  const cluster = adminConfig.clusters[0]?.cluster;
  if (!cluster) throw new Error(`the run's kubeconfig ${kubeconfigPath()} has no cluster`);
  const user = `system:serviceaccount:${namespace}:${name}`;
  const document = {
    apiVersion: "v1",
    kind: "Config",
    "current-context": user,
    clusters: [{ name: "cluster", cluster }],
    users: [{ name: user, user: { token: await requestToken(admin, namespace, name) } }],
    contexts: [{ name: user, context: { cluster: "cluster", user, namespace } }],
  };
  const dir = await mkdtemp(join(tmpdir(), "kubeloop-sa-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, "kubeconfig");
  await writeFile(path, stringify(document), { mode: 0o600 });
  return path;
}

/**
 * Applies roles and their bindings as `rbacFor` builds them (Roles, or ClusterRoles and their
 * bindings, which are deleted when the test ends), as `admin`.
 */
export async function applyRbac(t: TestContext, admin: Client, rbac: RbacObjects): Promise<void> {
  const force = { force: true };
  for (const role of rbac.roles) {
    if (role.kind === "Role") await admin.apply(Role, role, force);
    else {
      await admin.apply(ClusterRole, role, force);
      onCleanup(t, () => admin.delete(ClusterRole, role.metadata.name ?? "").catch(() => {}));
    }
  }
  for (const binding of rbac.bindings) {
    if (binding.kind === "RoleBinding") await admin.apply(RoleBinding, binding, force);
    else {
      await admin.apply(ClusterRoleBinding, binding, force);
      onCleanup(t, () => admin.delete(ClusterRoleBinding, binding.metadata.name ?? "").catch(() => {}));
    }
  }
}

/**
 * Puts the operator under exactly the RBAC `kubeloop generate` writes for it, deployed to
 * `namespace`: creates its ServiceAccount there, applies `rbac.yaml`, waits until the apiserver
 * allows every permission the operator was granted, and returns a kubeconfig authenticating as
 * the ServiceAccount. The cluster-scoped roles and bindings are deleted when the test ends.
 */
export async function generatedRbacKubeconfig(
  t: TestContext,
  admin: Client,
  operator: Operator,
  namespace: string,
): Promise<string> {
  await createServiceAccount(admin, namespace, operator.name);
  const rbac = (await manifestsOf(operator, { namespace })).get("rbac.yaml") ?? "";
  await kubectl(["apply", "--server-side", "-f", "-"], { input: rbac });
  const clusterScoped = new Map<string, ResourceType>(
    [ClusterRole, ClusterRoleBinding].map((k) => [k.kind, k]),
  );
  for (const doc of parseAllDocuments(rbac).map((d) => d.toJS() as KubeObject)) {
    const type = clusterScoped.get(doc.kind);
    if (type) onCleanup(t, () => admin.delete(type, doc.metadata.name ?? "").catch(() => {}));
  }
  const user = `system:serviceaccount:${namespace}:${operator.name}`;
  for (const permission of await permissionsOf(operator)) {
    await eventually(() => allowsAll(admin, user, namespace, permission), {
      what: `RBAC to let ${user} ${permission.verbs.join(",")} ${permission.type.plural}`,
    });
  }
  return serviceAccountKubeconfig(t, admin, namespace, operator.name);
}

/** True when a SubjectAccessReview allows `user` each verb of `permission` in `namespace`. */
async function allowsAll(
  admin: Client,
  user: string,
  namespace: string,
  permission: PermissionRequest,
): Promise<boolean> {
  for (const verb of permission.verbs) {
    const review = await admin.create(SubjectAccessReview, {
      apiVersion: SubjectAccessReview.apiVersion,
      kind: SubjectAccessReview.kind,
      metadata: {},
      spec: {
        user,
        resourceAttributes: {
          namespace: permission.namespace ?? namespace,
          verb,
          group: groupOf(permission.type.apiVersion),
          resource: permission.type.plural,
          ...(permission.subresource ? { subresource: permission.subresource } : {}),
        },
      },
    });
    if (!review.status?.allowed) return false;
  }
  return true;
}
