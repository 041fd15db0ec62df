import type {
  ConfigMapObject,
  KubeObject,
  ManagedFieldsEntry,
  ResourceType,
} from "../../../src/api/index.ts";
import type { ApiResponse, ListOptions, ObjectList, WatchRequestOptions } from "../../../src/client/index.ts";
import type { WatchClient } from "../../../src/watch/index.ts";
import { FakeWatchClient } from "../watch/support.ts";

/** A ConfigMap with a name, namespace (`""` for none), resourceVersion, labels and data. */
export function cm(
  name: string,
  namespace = "ns",
  resourceVersion = "1",
  labels?: Record<string, string>,
  data: Record<string, string> = {},
): ConfigMapObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: namespace || undefined, resourceVersion, labels },
    data,
  };
}

/** The same object with managedFields, as the apiserver sends it. */
export function withManagedFields(obj: ConfigMapObject): ConfigMapObject {
  const managedFields: ManagedFieldsEntry[] = [{ manager: "kubectl", operation: "Apply", fieldsV1: {} }];
  return { ...obj, metadata: { ...obj.metadata, managedFields } };
}

/** Names of objects, sorted. */
export function names(objects: readonly { metadata: { name?: string } }[]): string[] {
  return objects.map((o) => o.metadata.name ?? "").sort();
}

/** A {@link WatchClient} that routes each kind to its own {@link FakeWatchClient}. */
export class KindRoutedClient implements WatchClient {
  readonly #clients = new Map<string, FakeWatchClient>();

  /** The fake serving `kind` (created on first use). */
  kind(kind: string): FakeWatchClient {
    let client = this.#clients.get(kind);
    if (!client) {
      client = new FakeWatchClient();
      this.#clients.set(kind, client);
    }
    return client;
  }

  listPage<T extends KubeObject>(
    type: ResourceType<T>,
    opts: ListOptions & { continue?: string },
  ): Promise<ObjectList<T>> {
    return this.kind(type.kind).listPage(type, opts);
  }

  watchStream(type: ResourceType, opts: WatchRequestOptions): Promise<ApiResponse> {
    return this.kind(type.kind).watchStream(type, opts);
  }
}
