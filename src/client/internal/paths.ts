import { groupOf, type ResourceType } from "../../api/index.ts";

/** Where an object, a collection, or a subresource lives in the REST API. */
export interface Location {
  namespace?: string;
  name?: string;
  subresource?: string;
}

/** The REST path of a resource location, e.g. `/apis/apps/v1/namespaces/ns/deployments/web/status`. */
export function resourcePath(type: ResourceType, at: Location = {}): string {
  const root = groupOf(type.apiVersion) ? `/apis/${type.apiVersion}` : `/api/${type.apiVersion}`;
  const ns = type.namespaced && at.namespace ? `/namespaces/${encodeURIComponent(at.namespace)}` : "";
  const name = at.name ? `/${encodeURIComponent(at.name)}` : "";
  const sub = at.name && at.subresource ? `/${at.subresource}` : "";
  return `${root}${ns}/${type.plural}${name}${sub}`;
}
