import { stringify } from "yaml";

/** A kubeconfig with one cluster, one user and one context, credentials inlined. */
export interface KubeconfigDocument {
  apiVersion: "v1";
  kind: "Config";
  "current-context": string;
  clusters: { name: string; cluster: { server: string; "certificate-authority-data": string } }[];
  users: {
    name: string;
    user: { "client-certificate-data"?: string; "client-key-data"?: string; token?: string };
  }[];
  contexts: { name: string; context: { cluster: string; user: string; namespace?: string } }[];
}

const b64 = (pem: string) => Buffer.from(pem).toString("base64");

/** Builds a self-contained kubeconfig for `server` with a client certificate. */
export function buildKubeconfig(opts: {
  name: string;
  server: string;
  caPem: string;
  certPem: string;
  keyPem: string;
}): KubeconfigDocument {
  return {
    apiVersion: "v1",
    kind: "Config",
    "current-context": opts.name,
    clusters: [
      { name: opts.name, cluster: { server: opts.server, "certificate-authority-data": b64(opts.caPem) } },
    ],
    users: [
      {
        name: opts.name,
        user: { "client-certificate-data": b64(opts.certPem), "client-key-data": b64(opts.keyPem) },
      },
    ],
    contexts: [{ name: opts.name, context: { cluster: opts.name, user: opts.name } }],
  };
}

/** YAML text of a kubeconfig. */
export function kubeconfigYaml(doc: KubeconfigDocument): string {
  return stringify(doc);
}
