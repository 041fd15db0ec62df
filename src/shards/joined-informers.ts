/**
 * One informer read from two: a shard's view of a kind placed by the shard label is the shard's
 * informer of the labelled objects, joined with the replica's informer of the kind's unlabelled
 * ones (children made with `client.create` or `apply`, objects made by anyone else, primary
 * objects not labelled yet), so that no object is hidden from its controller.
 */
import { type KubeObject, keyOf } from "../api/index.ts";
import {
  createStore,
  type Indexer,
  type Informer,
  type InformerHandler,
  type StoreReader,
} from "../cache/index.ts";
import { type Clock, systemClock, type Timer } from "../clock/index.ts";

/**
 * Objects moving from the second informer to the first because this replica labelled them: the
 * second's watch drops such an object (it no longer matches `!kubeloop.dev/shard`) before the
 * first's delivers it, and that gap is not a deletion.
 */
export interface LabelMoves {
  /** Keys of the objects whose label write this replica sent; the join takes each once. */
  readonly keys: Set<string>;
  readonly clock?: Clock;
  /**
   * How long a moving object is kept, as the second last saw it, for the first to deliver it: after
   * that it is told deleted (it was deleted meanwhile and the first's watch relisted past it).
   * Default 60 s.
   */
  readonly waitMs?: number;
}

/**
 * `first` and `second` as one informer: reads see the objects of both (the first's copy of an
 * object in both, as while a label moves an object from one to the other), handlers hear both,
 * indexes and kept writers are asked of both, and it is synced once both are. Everything else
 * (health, scope, stopping) is the first's. The second's deletion of an object the first holds is
 * not told (the joined view still holds it), nor, with `moves`, that of an object labelled by this
 * replica, which stays readable until the first delivers it.
 */
export function joinInformers<T extends KubeObject>(
  first: Informer<T>,
  second: Informer<T>,
  moves?: LabelMoves,
): Informer<T> {
  const handlers = new Set<InformerHandler<T>>();
  // The objects the second dropped while they move to the first, and what tells each deleted.
  const held = createStore<T>();
  const timers = new Map<string, Timer>();
  const hides = (obj: T) => first.store.get(keyOf(obj)) !== undefined || timers.has(keyOf(obj));
  if (moves) {
    second.addHandler({ onDelete: (obj) => hold(obj) });
    first.addHandler({ onAdd: (obj) => release(keyOf(obj)) });
  }
  const hold = (obj: T) => {
    const key = keyOf(obj);
    if (!moves?.keys.delete(key) || first.store.get(key)) return;
    const timer = (moves.clock ?? systemClock).setTimer(moves.waitMs ?? 60_000, () => {
      if (!release(key) || first.store.get(key)) return;
      for (const handler of handlers) handler.onDelete?.(obj);
    });
    held.writer.apply(obj);
    timers.set(key, timer);
  };
  const release = (key: string) => {
    const timer = timers.get(key);
    timer?.cancel();
    const obj = held.reader.get(key);
    if (obj) held.writer.delete(obj);
    return timers.delete(key);
  };
  const members: Partial<Record<keyof Informer<T>, unknown>> = {
    store: joinStores([first.store, second.store, held.reader]),
    addHandler: (handler: InformerHandler<T>, options?: { replay?: boolean }) => {
      handlers.add(handler);
      const fromSecond = { ...handler, onDelete: (obj: T) => hides(obj) || handler.onDelete?.(obj) };
      const removers = [first.addHandler(handler, options), second.addHandler(fromSecond, options)];
      return () => {
        handlers.delete(handler);
        for (const remove of removers) remove();
      };
    },
    tombstone: (key: string) => first.tombstone(key) ?? second.tombstone(key),
    addIndexer: (name: string, indexer: Indexer<T>) => {
      first.addIndexer(name, indexer);
      second.addIndexer(name, indexer);
      held.writer.addIndexer(name, indexer);
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

/** The objects of `stores`, each key once (the copy of the first store holding it). */
function joinStores<T extends KubeObject>(stores: readonly StoreReader<T>[]): StoreReader<T> {
  const once = (lists: T[][]) => {
    const seen = new Set<string>();
    return lists.flat().filter((obj) => {
      const key = keyOf(obj);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  };
  return {
    get: (key) => stores.map((store) => store.get(key)).find((obj) => obj !== undefined),
    list: (opts) => once(stores.map((store) => store.list(opts))),
    byIndex: (index, value) => once(stores.map((store) => store.byIndex(index, value))),
    keys: () => [...new Set(stores.flatMap((store) => store.keys()))],
    get size() {
      return this.keys().length;
    },
  };
}
