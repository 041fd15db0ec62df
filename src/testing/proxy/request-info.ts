/**
 * What a request asks of the apiserver, read from its method and URL the way kube-apiserver's
 * `RequestInfoFactory` does: the Kubernetes verb, the resource, namespace, name and subresource.
 */

/** The Kubernetes verbs the proxy tells apart. Non-resource GETs (`/version`, discovery) count as `get`. */
export type Verb =
  | "get"
  | "list"
  | "watch"
  | "create"
  | "update"
  | "patch"
  | "delete"
  | "deletecollection"
  | "other";

/** The verbs that change state; {@link FaultProxy.mutatingCount} sums them. */
export const mutatingVerbs: readonly Verb[] = ["create", "update", "patch", "delete", "deletecollection"];

/** One request, described in Kubernetes terms. */
export interface RequestInfo {
  /** HTTP method, upper case. */
  method: string;
  /** URL path without the query string. */
  path: string;
  /** The query string without `?` (empty when there is none). */
  query: string;
  verb: Verb;
  /** API group; `""` for the core group. Absent for non-resource paths. */
  group?: string;
  /** Resource plural, e.g. `configmaps`. Absent for non-resource paths such as `/version`. */
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

const namespaceSubresources = new Set(["status", "finalize"]);
const truthy = new Set(["1", "t", "T", "true", "TRUE", "True"]);

/** Describes a request from its method and its URL (path plus optional query). */
export function describeRequest(method: string, url: string): RequestInfo {
  const mark = url.indexOf("?");
  const path = mark === -1 ? url : url.slice(0, mark);
  const query = mark === -1 ? "" : url.slice(mark + 1);
  const upper = method.toUpperCase();
  const base: RequestInfo = { method: upper, path, query, verb: "other" };
  const parts = path.split("/").filter((p) => p !== "");
  const watchParam = truthy.has(new URLSearchParams(query).get("watch") ?? "");
  const resourceParts = apiParts(parts);
  if (!resourceParts) return { ...base, verb: methodVerb(upper, true, false) };
  let { rest } = resourceParts;
  let watchPath = false;
  if (rest[0] === "watch") {
    watchPath = true;
    rest = rest.slice(1);
  }
  const located = locate(rest);
  const info: RequestInfo = { ...base, group: resourceParts.group, ...located };
  info.verb = methodVerb(upper, located.name !== undefined, watchParam || watchPath);
  return info;
}

function apiParts(parts: string[]): { group: string; rest: string[] } | undefined {
  if (parts[0] === "api" && parts.length >= 3) return { group: "", rest: parts.slice(2) };
  if (parts[0] === "apis" && parts.length >= 4) return { group: parts[1] as string, rest: parts.slice(3) };
  return undefined;
}

function locate(rest: string[]): Pick<RequestInfo, "resource" | "subresource" | "namespace" | "name"> {
  let namespace: string | undefined;
  let parts = rest;
  if (parts[0] === "namespaces" && parts.length > 1) {
    namespace = parts[1];
    if (parts.length > 2 && !namespaceSubresources.has(parts[2] as string)) parts = parts.slice(2);
  }
  const [resource, name, subresource] = parts;
  const located: Pick<RequestInfo, "resource" | "subresource" | "namespace" | "name"> = { resource };
  if (namespace !== undefined) located.namespace = namespace;
  if (name !== undefined) located.name = name;
  if (subresource !== undefined) located.subresource = subresource;
  return located;
}

function methodVerb(method: string, named: boolean, watch: boolean): Verb {
  switch (method) {
    case "GET":
    case "HEAD":
      if (watch) return "watch";
      return named ? "get" : "list";
    case "POST":
      return "create";
    case "PUT":
      return "update";
    case "PATCH":
      return "patch";
    case "DELETE":
      return named ? "delete" : "deletecollection";
    default:
      return "other";
  }
}
