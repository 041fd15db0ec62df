/**
 * ServiceAccount credentials for end-to-end tests: a short-lived token from the TokenRequest API,
 * written into a kubeconfig next to the cluster's server and CA, so code under test runs as the
 * ServiceAccount (with only its RBAC) instead of as the admin.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { parse, stringify } from "yaml";
import { ServiceAccount } from "../../../src/api/index.ts";
import type { Client } from "../../../src/client/index.ts";
import { serviceAccountManifest } from "../../../src/generate/index.ts";
import { kubeconfigPath } from "../support.ts";

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
