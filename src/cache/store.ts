/**
 * An in-memory store of objects keyed by `namespace/name` — held by namespace, then by name, so
 * the namespace index comes free and an entry holds no key string — and user-defined indexes.
 * It has exactly one writer (the reflector) and any number of readers. An indexer that throws (or
 * returns something other than an array) on an object leaves that object stored but out of that
 * index, and is reported; it never fails the write.
 */
import { type KubeObject, keyOf, type ObjectKey, objectKey, parseKey } from "../api/index.ts";
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
  const { namespace: _, ...own } = indexers;
  const store = new IndexedStore<T>(own, onIndexerError);
  return { reader: store, writer: store };
}

/** The namespace an object is stored under: `""` for cluster-scoped objects. */
const namespaceOf = (obj: KubeObject): string => obj.metadata.namespace ?? "";
const nameOf = (obj: KubeObject): string => obj.metadata.name ?? "";

/**
 * Objects are held by namespace, then by name: each namespace's map is the namespace index, and
 * its keys are the objects' own name strings, so an entry costs no key string of its own (a
 * `namespace/name` key is made only when asked for). Other indexes hold the objects themselves.
 */
class IndexedStore<T extends KubeObject> implements StoreReader<T>, StoreWriter<T> {
  #byNamespace = new Map<string, Map<string, T>>();
  #size = 0;
  readonly #indexers: Record<string, Indexer<T>>;
  readonly #indexes = new Map<string, Map<string, Set<T>>>();
  readonly #onIndexerError: IndexerErrorHandler;

  constructor(indexers: Record<string, Indexer<T>>, onIndexerError: IndexerErrorHandler) {
    this.#indexers = indexers;
    this.#onIndexerError = onIndexerError;
    for (const name of Object.keys(indexers)) this.#indexes.set(name, new Map());
  }

  get size(): number {
    return this.#size;
  }

  get(key: ObjectKey): T | undefined {
    const { namespace = "", name } = parseKey(key);
    return this.#byNamespace.get(namespace)?.get(name);
  }

  keys(): ObjectKey[] {
    const keys: ObjectKey[] = [];
    for (const [namespace, objects] of this.#byNamespace) {
      for (const name of objects.keys()) keys.push(objectKey(namespace, name));
    }
    return keys;
  }

  list(opts: { namespace?: string; labelSelector?: string | LabelSelectorMatcher } = {}): T[] {
    const candidates =
      opts.namespace === undefined
        ? [...this.#byNamespace.values()].flatMap((objects) => [...objects.values()])
        : this.byIndex("namespace", opts.namespace);
    if (!opts.labelSelector) return candidates;
    const selector =
      typeof opts.labelSelector === "string" ? parseLabelSelector(opts.labelSelector) : opts.labelSelector;
    return candidates.filter((o) => selector.matches(o.metadata.labels));
  }

  byIndex(index: string, value: string): T[] {
    const objects =
      index === "namespace" ? this.#byNamespace.get(value) : this.#indexes.get(index)?.get(value);
    return objects ? [...objects.values()] : [];
  }

  apply(obj: T): T | undefined {
    const namespace = namespaceOf(obj);
    const objects = this.#byNamespace.get(namespace) ?? new Map<string, T>();
    if (objects.size === 0) this.#byNamespace.set(namespace, objects);
    const previous = objects.get(nameOf(obj));
    if (previous) this.#unindex(previous);
    else this.#size++;
    objects.set(nameOf(obj), obj);
    this.#index(obj);
    return previous;
  }

  delete(obj: KubeObject): T | undefined {
    const namespace = namespaceOf(obj);
    const objects = this.#byNamespace.get(namespace);
    const previous = objects?.get(nameOf(obj));
    if (!objects || !previous) return undefined;
    this.#unindex(previous);
    objects.delete(nameOf(obj));
    if (objects.size === 0) this.#byNamespace.delete(namespace);
    this.#size--;
    return previous;
  }

  replace(objects: Iterable<T>): T[] {
    const before = this.#byNamespace;
    this.#byNamespace = new Map();
    this.#size = 0;
    for (const index of this.#indexes.values()) index.clear();
    for (const obj of objects) this.apply(obj);
    const removed: T[] = [];
    for (const [namespace, old] of before) {
      const now = this.#byNamespace.get(namespace);
      for (const [name, obj] of old) if (!now?.has(name)) removed.push(obj);
    }
    return removed;
  }

  addIndexer(name: string, indexer: Indexer<T>): void {
    if (name === "namespace" || this.#indexers[name]) return;
    this.#indexers[name] = indexer;
    this.#indexes.set(name, new Map());
    for (const objects of this.#byNamespace.values()) {
      for (const obj of objects.values()) this.#indexOne(name, obj);
    }
  }

  #index(obj: T): void {
    for (const name of Object.keys(this.#indexers)) this.#indexOne(name, obj);
  }

  #indexOne(name: string, obj: T): void {
    const index = this.#indexes.get(name) as Map<string, Set<T>>;
    for (const value of this.#valuesOf(name, obj, true)) {
      const objects = index.get(value) ?? new Set<T>();
      index.set(value, objects);
      objects.add(obj);
    }
  }

  #unindex(obj: T): void {
    for (const name of Object.keys(this.#indexers)) {
      const index = this.#indexes.get(name) as Map<string, Set<T>>;
      // A failure here was reported when the object was indexed: it is in no entry of this index.
      for (const value of this.#valuesOf(name, obj, false)) {
        const objects = index.get(value);
        objects?.delete(obj);
        if (objects?.size === 0) index.delete(value);
      }
    }
  }

  /** The values indexer `name` gives `obj`; none when it fails (reported when `report`). */
  #valuesOf(name: string, obj: T, report: boolean): readonly string[] {
    try {
      const values = (this.#indexers[name] as Indexer<T>)(obj);
      if (Array.isArray(values)) return values;
      throw new TypeError(`indexer "${name}" returned ${typeof values}, not an array of strings`);
    } catch (err) {
      if (report) this.#onIndexerError(err, name, keyOf(obj));
      return [];
    }
  }
}
