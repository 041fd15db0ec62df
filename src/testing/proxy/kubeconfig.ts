/**
 * Kubeconfig plumbing for the proxy: reads upstream credentials out of a kubeconfig, and rewrites
 * a kubeconfig to point at the proxy while keeping its credentials (certificates, tokens, exec
 * plugins) as they are.
 */
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { parse } from "yaml";
import type { KubeconfigDocument } from "../../cluster/index.ts";
import { ProxyConfigError } from "./errors.ts";
import type { UpstreamCredentials } from "./upstream.ts";

/** A kubeconfig given as a file path or as a parsed document. */
export type KubeconfigSource = string | KubeconfigDocument;

/** The parts of a kubeconfig the proxy reads; everything else is carried over untouched. */
interface LooseKubeconfig {
  "current-context"?: string;
  clusters?: { name: string; cluster: Record<string, unknown> }[];
  users?: { name: string; user: Record<string, unknown> }[];
  contexts?: { name: string; context: { cluster: string; user: string; namespace?: string } }[];
}

interface Loaded {
  doc: LooseKubeconfig;
  /** Directory that relative file references are resolved against. */
  dir: string;
}

function load(source: KubeconfigSource): Loaded {
  if (typeof source !== "string") return { doc: structuredClone(source), dir: process.cwd() };
  try {
    return { doc: parse(readFileSync(source, "utf8")) as LooseKubeconfig, dir: dirname(resolve(source)) };
  } catch (err) {
    throw new ProxyConfigError(`cannot read the kubeconfig ${source}: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

/** Reads the server, CA and client certificate of a kubeconfig's current context. */
export function upstreamFromKubeconfig(source: KubeconfigSource): UpstreamCredentials {
  const { doc, dir } = load(source);
  const context =
    doc.contexts?.find((c) => c.name === doc["current-context"])?.context ?? doc.contexts?.[0]?.context;
  const cluster = doc.clusters?.find((c) => c.name === context?.cluster)?.cluster;
  const user = doc.users?.find((u) => u.name === context?.user)?.user;
  const server = cluster?.server;
  const ca = pem(cluster, "certificate-authority", dir);
  const cert = pem(user, "client-certificate", dir);
  const key = pem(user, "client-key", dir);
  if (typeof server !== "string" || !ca || !cert || !key) {
    throw new ProxyConfigError(
      "the upstream kubeconfig's current context needs a server, a CA and a client certificate with its key " +
        "(the proxy connects upstream as that user and impersonates certificate callers)",
    );
  }
  return { server, ca, cert, key };
}

function pem(entry: Record<string, unknown> | undefined, field: string, dir: string): string | undefined {
  const data = entry?.[`${field}-data`];
  if (typeof data === "string") return Buffer.from(data, "base64").toString("utf8");
  const file = entry?.[field];
  return typeof file === "string" ? readFileSync(resolve(dir, file), "utf8") : undefined;
}

const fileFields = ["client-certificate", "client-key", "tokenFile"];
const tlsFields = ["certificate-authority", "tls-server-name", "insecure-skip-tls-verify", "proxy-url"];

/** A copy of `source` whose clusters all point at `url` and trust `caPem`; users are kept, file paths made absolute. */
export function proxiedKubeconfig(source: KubeconfigSource, url: string, caPem: string): object {
  const { doc, dir } = load(source);
  for (const entry of doc.clusters ?? []) {
    for (const field of tlsFields) delete entry.cluster[field];
    entry.cluster.server = url;
    entry.cluster["certificate-authority-data"] = Buffer.from(caPem).toString("base64");
  }
  for (const entry of doc.users ?? []) {
    for (const field of fileFields) {
      const value = entry.user[field];
      if (typeof value === "string" && !isAbsolute(value)) entry.user[field] = resolve(dir, value);
    }
  }
  return doc;
}
