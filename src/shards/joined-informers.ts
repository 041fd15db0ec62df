/**
 * One informer read from two: a shard's view of an owned kind under the uid key is the shard's
 * informer of the children `ensureChild` labelled with the shard, joined with the replica's
 * informer of the kind's unlabelled objects (children made with `client.create` or `apply`,
 * objects made by anyone else), so that no child is hidden from its owner's controller.
 */
import { type KubeObject, keyOf } from "../api/index.ts";
import type { Indexer, Informer, InformerHandler, StoreReader } from "../cache/index.ts";

/**
 * `first` and `second` as one informer: reads see the objects of both (the first's copy of an
 * object in both, as while a label moves an object from one to the other), handlers hear both,
 * indexes and kept writers are asked of both, and it is synced once both are. Everything else
 * (health, scope, stopping) is the first's.
 */
export function joinInformers<T extends KubeObject>(first: Informer<T>, second: Informer<T>): Informer<T> {
  const members: Partial<Record<keyof Informer<T>, unknown>> = {
    store: joinStores(first.store, second.store),
    addHandler: (handler: InformerHandler<T>, options?: { replay?: boolean }) => {
      const removers = [first.addHandler(handler, options), second.addHandler(handler, options)];
      return () => {
        for (const remove of removers) remove();
      };
    },
    tombstone: (key: string) => first.tombstone(key) ?? second.tombstone(key),
    addIndexer: (name: string, indexer: Indexer<T>) => {
      first.addIndexer(name, indexer);
      second.addIndexer(name, indexer);
    },
    retainWriters: () => {
      first.retainWriters();
      second.retainWriters();
    },
    waitForSync: async (signal?: AbortSignal, timeoutMs?: number) => {
      await Promise.all([first.waitForSync(signal, timeoutMs), second.waitForSync(signal, timeoutMs)]);
    },
  };
  return new Proxy({} as Informer<T>, {
    get(_, property) {
      if (property === "synced") return first.synced && second.synced;
      if (property in members) return members[property as keyof Informer<T>];
      // The first itself as receiver: its private fields are not the proxy's.
      const value: unknown = Reflect.get(first, property, first);
      return typeof value === "function" ? value.bind(first) : value;
    },
  });
}

/** The objects of both stores, each key once (the first's copy). */
function joinStores<T extends KubeObject>(first: StoreReader<T>, second: StoreReader<T>): StoreReader<T> {
  const both = (a: T[], b: T[]) => {
    const keys = new Set(a.map((obj) => keyOf(obj)));
    return [...a, ...b.filter((obj) => !keys.has(keyOf(obj)))];
  };
  return {
    get: (key) => first.get(key) ?? second.get(key),
    list: (opts) => both(first.list(opts), second.list(opts)),
    byIndex: (index, value) => both(first.byIndex(index, value), second.byIndex(index, value)),
    keys: () => [...new Set([...first.keys(), ...second.keys()])],
    get size() {
      return this.keys().length;
    },
  };
}
