import type { TestContext } from "node:test";
import {
  ConfigMap,
  type ConfigMapObject,
  type KubeObject,
  type ManagedFieldsEntry,
  type ResourceType,
} from "../../../src/api/index.ts";
import {
  Informer,
  InformerCache,
  type InformerCacheOptions,
  type InformerHandler,
  type InformerOptions,
  type InformerScope,
} from "../../../src/cache/index.ts";
import type { ApiResponse, ListOptions, ObjectList, WatchRequestOptions } from "../../../src/client/index.ts";
import { FakeClock } from "../../../src/clock/index.ts";
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

/** An informer of ConfigMaps that lists, then watches, on a fake client; retries wait 500–1000 ms. */
export function startInformer(t: TestContext, options: InformerOptions<ConfigMapObject> = {}) {
  const client = new FakeWatchClient();
  const clock = new FakeClock(1_000);
  const errors: [unknown, string][] = [];
  const informer = new Informer<ConfigMapObject>(client, ConfigMap, {
    clock,
    onError: (err, context) => errors.push([err, context]),
    ...options,
    watch: { initialState: "list", backoff: { initialMs: 1_000, maxMs: 1_000 }, ...options.watch },
  });
  const stop = new AbortController();
  t.after(() => stop.abort());
  const start = () => informer.start(stop.signal);
  return { client, clock, errors, informer, stop, start };
}

/** A handler recording every call in brief form. */
export function recording(log: string[], prefix = ""): InformerHandler<ConfigMapObject> {
  const at = (o: ConfigMapObject) => `${o.metadata.name}@${o.metadata.resourceVersion}`;
  return {
    onAdd: (obj, initial) => log.push(`${prefix}add ${at(obj)}${initial ? " (initial)" : ""}`),
    onUpdate: (old, obj) => log.push(`${prefix}update ${at(old)}→${at(obj)}`),
    onDelete: (obj) => log.push(`${prefix}delete ${at(obj)}`),
  };
}

/** An informer cache on a {@link KindRoutedClient} and a FakeClock, recording lazily started informers. */
export function newCache(t: TestContext, options: InformerCacheOptions = {}) {
  const client = new KindRoutedClient();
  const clock = new FakeClock();
  const lazy: [ResourceType, InformerScope][] = [];
  const cache = new InformerCache(client, {
    clock,
    onLazyInformer: (type, scope) => lazy.push([type, scope]),
    informer: { watch: { initialState: "list" } },
    ...options,
  });
  const stop = new AbortController();
  t.after(() => stop.abort());
  return { client, clock, cache, lazy, stop };
}
