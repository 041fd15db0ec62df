/** The hub side of the multi-cluster e2e tests: a member cluster's kubeconfig Secret. */
import { readFileSync } from "node:fs";
import { Secret } from "../../../src/api/index.ts";
import type { MemberCluster } from "../../../src/cluster/index.ts";
import { KUBECONFIG_SECRET_LABEL } from "../../../src/multicluster/index.ts";
import { testClient } from "../support.ts";

/** Creates member `m`'s kubeconfig Secret in the hub's `namespace`, with `labels` besides the provider's. */
export async function addMemberSecret(
  namespace: string,
  m: MemberCluster,
  labels: Record<string, string> = {},
): Promise<void> {
  await (await testClient()).create(Secret, {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: m.name, namespace, labels: { ...labels, [KUBECONFIG_SECRET_LABEL]: "true" } },
    data: { kubeconfig: Buffer.from(readFileSync(m.kubeconfigPath)).toString("base64") },
  });
}
