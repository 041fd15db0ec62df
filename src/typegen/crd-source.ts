/** Where `kubeloop import` finds CRDs: YAML files (one or more documents each), or a cluster. */
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";
import type { Client } from "../client/index.ts";
import type { CrdDocument } from "./crd.ts";
import { TypegenError } from "./errors.ts";

/** The CustomResourceDefinitions in a YAML file; throws when it cannot be read or holds none. */
export function readCrdFile(path: string): CrdDocument[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new TypegenError(
      `cannot read ${path} (${(err as Error).message})`,
      "pass the path of a CRD YAML file",
      err,
    );
  }
  const documents = parseAllDocuments(text);
  const failed = documents.find((document) => document.errors.length > 0);
  if (failed) {
    throw new TypegenError(
      `${path} is not valid YAML (${failed.errors[0]?.message})`,
      "pass a CRD YAML file",
    );
  }
  const crds = documents
    .map((document) => document.toJS() as CrdDocument | null)
    .filter((document): document is CrdDocument => document?.kind === "CustomResourceDefinition");
  if (crds.length === 0) {
    throw new TypegenError(
      `${path} holds no CustomResourceDefinition`,
      "pass the YAML of a CRD (kind: CustomResourceDefinition), as `kubectl get crd <name> -o yaml` prints it",
    );
  }
  return crds;
}

/** The CRDs of API group `group` installed in the cluster `client` talks to. */
export async function readClusterCrds(client: Client, group: string): Promise<CrdDocument[]> {
  let list: { items: CrdDocument[] };
  try {
    list = await client.request({
      method: "GET",
      path: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
      verb: "list",
    });
  } catch (err) {
    throw new TypegenError(
      `cannot list the CRDs of the cluster (${(err as Error).message})`,
      "check that KUBECONFIG names a reachable cluster and that you may list customresourcedefinitions",
      err,
    );
  }
  const crds = list.items.filter((crd) => crd.spec?.group === group);
  if (crds.length === 0) {
    const groups = [...new Set(list.items.map((crd) => crd.spec?.group))].sort();
    throw new TypegenError(
      `the cluster has no CRD of group ${group}`,
      `install the CRDs first, or name one of the groups it has: ${groups.join(", ") || "(none)"}`,
    );
  }
  return crds.map((crd) => ({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    ...crd,
  }));
}
