/**
 * An in-memory store of objects keyed by `namespace/name`, with a namespace index and
 * user-defined indexes. It has exactly one writer (the reflector) and any number of readers.
 * An indexer that throws (or returns something other than an array) on an object leaves that
 * object stored but out of that index, and is reported; it never fails the write.
 */
import { type KubeObject, keyOf, type ObjectKey } from "../api/index.ts";
import { type LabelSelectorMatcher, parseLabelSelector } from "./labels.ts";

/** Computes the index values of an object (e.g. the names of the ConfigMaps it references). */
export type Indexer<T extends KubeObject> = (obj: T) => readonly string[];

/** Read access to a store. Objects are shared: treat them as immutable. */
export interface StoreReader<T extends KubeObject> {
  /** The object with this `namespace/name` (or `name`) key. */
  get(key: ObjectKey): T | undefined;
  /** Objects, optionally of one namespace and matching a label selector. */
  list(opts?: { namespace?: string; labelSelector?: string | LabelSelectorMatcher }): T[];
  /** Objects whose indexer `index` produced `value`. */
  byIndex(index: string, value: string): T[];
  /** Every key. */
  keys(): ObjectKey[];
  /** Number of objects. */
  readonly size: number;
}

/** Write access to a store, for the reflector. */
export interface StoreWriter<T extends KubeObject> {
  /** Inserts or replaces an object; returns the previous version. */
  apply(obj: T): T | undefined;
  /** Removes an object; returns what was stored. */
  delete(obj: KubeObject): T | undefined;
  /** Replaces the whole content; returns the objects that were removed. */
  replace(objects: Iterable<T>): T[];
  /** Adds an index (computed for the stored objects at once); a name already present is kept. */
  addIndexer(name: string, indexer: Indexer<T>): void;
}

/** Told when indexer `index` failed on the object stored under `key`. */
export type IndexerErrorHandler = (err: unknown, index: string, key: ObjectKey) => void;

/**
 * Creates a store with optional indexes; a `namespace` index is always present. `onIndexerError`
 * hears of each indexer failure (the object stays stored, outside that index).
 */
export function createStore<T extends KubeObject>(
  indexers: Record<string, Indexer<T>> = {},
  onIndexerError: IndexerErrorHandler = () => {},
): {
  reader: StoreReader<T>;
  writer: StoreWriter<T>;
} {
  const all = { ...indexers, namespace: (o: T) => [o.metadata.namespace ?? ""] };
  const store = new IndexedStore<T>(all, onIndexerError);
  return { reader: store, writer: store };
}

class IndexedStore<T extends KubeObject> implements StoreReader<T>, StoreWriter<T> {
  readonly #objects = new Map<ObjectKey, T>();
  readonly #indexers: Record<string, Indexer<T>>;
  readonly #indexes = new Map<string, Map<string, Set<ObjectKey>>>();
  readonly #onIndexerError: IndexerErrorHandler;

  constructor(indexers: Record<string, Indexer<T>>, onIndexerError: IndexerErrorHandler) {
    this.#indexers = indexers;
    this.#onIndexerError = onIndexerError;
    for (const name of Object.keys(indexers)) this.#indexes.set(name, new Map());
  }

  get size(): number {
    return this.#objects.size;
  }

  get(key: ObjectKey): T | undefined {
    return this.#objects.get(key);
  }

  keys(): ObjectKey[] {
    return [...this.#objects.keys()];
  }

  list(opts: { namespace?: string; labelSelector?: string | LabelSelectorMatcher } = {}): T[] {
    const candidates =
      opts.namespace === undefined ? [...this.#objects.values()] : this.byIndex("namespace", opts.namespace);
    if (!opts.labelSelector) return candidates;
    const selector =
      typeof opts.labelSelector === "string" ? parseLabelSelector(opts.labelSelector) : opts.labelSelector;
    return candidates.filter((o) => selector.matches(o.metadata.labels));
  }

  byIndex(index: string, value: string): T[] {
    const keys = this.#indexes.get(index)?.get(value);
    return keys ? [...keys].map((k) => this.#objects.get(k) as T) : [];
  }

  apply(obj: T): T | undefined {
    const key = keyOf(obj);
    const previous = this.#objects.get(key);
    if (previous) this.#unindex(key, previous);
    this.#objects.set(key, obj);
    this.#index(key, obj);
    return previous;
  }

  delete(obj: KubeObject): T | undefined {
    const key = keyOf(obj);
    const previous = this.#objects.get(key);
    if (!previous) return undefined;
    this.#unindex(key, previous);
    this.#objects.delete(key);
    return previous;
  }

  replace(objects: Iterable<T>): T[] {
    const next = new Map<ObjectKey, T>();
    for (const obj of objects) next.set(keyOf(obj), obj);
    const removed = [...this.#objects].filter(([key]) => !next.has(key)).map(([, obj]) => obj);
    this.#objects.clear();
    for (const index of this.#indexes.values()) index.clear();
    for (const [key, obj] of next) {
      this.#objects.set(key, obj);
      this.#index(key, obj);
    }
    return removed;
  }

  addIndexer(name: string, indexer: Indexer<T>): void {
    if (this.#indexers[name]) return;
    this.#indexers[name] = indexer;
    this.#indexes.set(name, new Map());
    for (const [key, obj] of this.#objects) this.#indexOne(name, key, obj);
  }

  #index(key: ObjectKey, obj: T): void {
    for (const name of Object.keys(this.#indexers)) this.#indexOne(name, key, obj);
  }

  #indexOne(name: string, key: ObjectKey, obj: T): void {
    const index = this.#indexes.get(name) as Map<string, Set<ObjectKey>>;
    for (const value of this.#valuesOf(name, key, obj, true)) {
      const keys = index.get(value) ?? new Set<ObjectKey>();
      index.set(value, keys);
      keys.add(key);
    }
  }

  #unindex(key: ObjectKey, obj: T): void {
    for (const name of Object.keys(this.#indexers)) {
      const index = this.#indexes.get(name) as Map<string, Set<ObjectKey>>;
      // A failure here was reported when the object was indexed: it is in no entry of this index.
      for (const value of this.#valuesOf(name, key, obj, false)) {
        const keys = index.get(value);
        keys?.delete(key);
        if (keys?.size === 0) index.delete(value);
      }
    }
  }

  /** The values indexer `name` gives `obj`; none when it fails (reported when `report`). */
  #valuesOf(name: string, key: ObjectKey, obj: T, report: boolean): readonly string[] {
    try {
      const values = (this.#indexers[name] as Indexer<T>)(obj);
      if (Array.isArray(values)) return values;
      throw new TypeError(`indexer "${name}" returned ${typeof values}, not an array of strings`);
    } catch (err) {
      if (report) this.#onIndexerError(err, name, key);
      return [];
    }
  }
}
