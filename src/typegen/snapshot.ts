/**
 * What the generator reads from an apiserver: its version, the OpenAPI v3 document and the
 * discovery resource list of every built-in group/version, and each group's preferred version.
 * Groups served by CustomResourceDefinitions are left out: they are not part of Kubernetes.
 */
import type { Client } from "../client/index.ts";
import { TypegenError } from "./errors.ts";
import type { Schema } from "./schema.ts";

/** An OpenAPI v3 document of one group/version (`/openapi/v3/apis/<group>/<version>`). */
export interface OpenApiDocument {
  components?: { schemas?: Record<string, Schema> };
}

/** One entry of a discovery resource list (`/apis/<group>/<version>`). */
export interface ApiResource {
  /** The plural (`deployments`), or `<plural>/<subresource>` (`deployments/scale`). */
  name: string;
  namespaced: boolean;
  kind: string;
}

/** One group/version the apiserver serves: its schemas and its resources. */
export interface GroupVersionApi {
  readonly openapi: OpenApiDocument;
  readonly resources: readonly ApiResource[];
}

/** The built-in API of an apiserver, as {@link readApiSnapshot} reads it. */
export interface ApiSnapshot {
  /** The apiserver's `gitVersion`, e.g. `v1.36.3`. */
  readonly version: string;
  /** Keyed by API version: `v1` for the core group, else `<group>/<version>`. */
  readonly groupVersions: Readonly<Record<string, GroupVersionApi>>;
  /** The preferred version of each group (`""` is the core group). */
  readonly preferred: Readonly<Record<string, string>>;
}

interface GroupList {
  groups: { name: string; preferredVersion: { version: string } }[];
}

/** Reads the built-in API of the apiserver `client` talks to. */
export async function readApiSnapshot(client: Client): Promise<ApiSnapshot> {
  const get = <T>(path: string) => client.request<T>({ method: "GET", path, verb: "get" });
  try {
    const version = (await get<{ gitVersion: string }>("/version")).gitVersion;
    const index = await get<{ paths: Record<string, unknown> }>("/openapi/v3");
    const custom = await customGroups(client);
    const groupVersions: Record<string, GroupVersionApi> = {};
    for (const path of Object.keys(index.paths).sort()) {
      const apiVersion = apiVersionOfPath(path);
      if (!apiVersion || custom.has(apiVersion.split("/")[0] as string)) continue;
      const [openapi, list] = await Promise.all([
        get<OpenApiDocument>(`/openapi/v3/${path}`),
        get<{ resources: ApiResource[] }>(`/${path}`),
      ]);
      groupVersions[apiVersion] = { openapi, resources: list.resources };
    }
    const groups = await get<GroupList>("/apis");
    const preferred: Record<string, string> = { "": "v1" };
    for (const group of groups.groups) preferred[group.name] = group.preferredVersion.version;
    return { version, groupVersions, preferred };
  } catch (err) {
    if (err instanceof TypegenError) throw err;
    throw new TypegenError(
      `cannot read the API of the cluster (${err instanceof Error ? err.message : String(err)})`,
      "check that KUBECONFIG names a running cluster (kubeloop cluster up) and that you may read /openapi/v3",
      err,
    );
  }
}

/** `v1` for `api/v1`, `apps/v1` for `apis/apps/v1`; undefined for any other OpenAPI path. */
function apiVersionOfPath(path: string): string | undefined {
  if (path === "api/v1") return "v1";
  return /^apis\/[^/]+\/[^/]+$/.test(path) ? path.slice("apis/".length) : undefined;
}

async function customGroups(client: Client): Promise<Set<string>> {
  const crds = await client.request<{ items: { spec: { group: string } }[] }>({
    method: "GET",
    path: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    verb: "list",
  });
  return new Set(crds.items.map((crd) => crd.spec.group));
}
