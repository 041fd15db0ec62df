/**
 * What a cached object costs in heap, estimated from its shape — cheap enough to run on every
 * add, update and delete, so `kubeloop_cache_bytes{kind}` is a running sum, never a walk of the
 * store on a scrape.
 *
 * The sizes are V8's on 64-bit Node without pointer compression (Node's default), measured with
 * `JSON.parse` objects: an object is a 24-byte header and 8 bytes per property (an empty one
 * keeps 4 spare slots: 56 bytes), an array 32 bytes plus a 16-byte backing store of 8 bytes per
 * element, a string 16 bytes plus its characters rounded up to 8, a non-integer number 16.
 * Property names, and string values of up to 10 characters, are internalized by `JSON.parse` (one
 * copy per process) and cost only their slot; under the informer's default transform, every value
 * {@link internStrings} shares costs only its slot too (the metadata records it shares are counted
 * in full: the estimate errs high by what siblings share). Then each entry's slot in the store.
 * `bench/cache-memory.ts` checks the estimate against the measured heap (within ±20 %).
 */
import type { KubeObject } from "../api/index.ts";
import { sharedByInterning } from "./intern.ts";
import type { Indexer, StoreWriter } from "./store.ts";

const word = 8;
const objectHeader = 3 * word;
const emptyObject = objectHeader + 4 * word;
const arrayHeader = 4 * word;
const backingHeader = 2 * word;
const stringHeader = 2 * word;
const heapNumber = 2 * word;
/** `JSON.parse` internalizes string values up to this length: repeats share one copy. */
const internalizedLength = 10;
/**
 * A store entry besides its object: its slot in its namespace's map, keyed by the object's own name
 * string (a hash table entry of three words and its share of buckets, at the table's average
 * load), measured with `bench/cache-memory.ts`'s name-and-namespace objects.
 */
const entryOverhead = 4 * word;

/**
 * The estimated heap bytes an object holds in a store, with its entry there. `interned`:
 * the informer's default transform ({@link internStrings}) shares its repeated strings.
 */
export function estimateBytes(obj: KubeObject, interned: boolean): number {
  return entryOverhead + valueBytes(obj, undefined, undefined, interned);
}

function stringBytes(s: string): number {
  return stringHeader + Math.ceil(s.length / word) * word;
}

function valueBytes(
  value: unknown,
  field: string | undefined,
  parent: string | undefined,
  interned: boolean,
): number {
  switch (typeof value) {
    case "string":
      if (value.length <= internalizedLength) return 0;
      return interned && sharedByInterning(value, field, parent) ? 0 : stringBytes(value);
    case "number":
      return Number.isInteger(value) && Math.abs(value) < 2 ** 31 ? 0 : heapNumber;
    case "object":
      if (value === null) return 0;
      if (Array.isArray(value)) {
        let bytes = arrayHeader + (value.length ? backingHeader + value.length * word : 0);
        for (const item of value) bytes += valueBytes(item, field, parent, interned);
        return bytes;
      }
      return objectBytes(value as Record<string, unknown>, field, interned);
    default:
      return 0;
  }
}

function objectBytes(value: Record<string, unknown>, field: string | undefined, interned: boolean): number {
  let bytes = objectHeader;
  let properties = 0;
  for (const key in value) {
    properties++;
    bytes += word + valueBytes(value[key], key, field, interned);
  }
  return properties === 0 ? emptyObject : bytes;
}

/**
 * A store's writer that keeps {@link CostedWriter.bytes}, the estimated heap of what the store
 * holds (objects sized by `sizeOf` as they are written, not by walking the store), and tells
 * `changed` after each write. Indexes a user adds are not counted: they hold references to the objects counted here.
 */
export class CostedWriter<T extends KubeObject> implements StoreWriter<T> {
  #bytes = 0;

  constructor(
    private readonly inner: StoreWriter<T>,
    private readonly sizeOf: (obj: T) => number,
    private readonly changed: (bytes: number) => void = () => {},
  ) {}

  /** The estimated heap bytes of the objects written and not since removed. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Stores `obj`, adding its size and removing its predecessor's. */
  apply(obj: T): T | undefined {
    const old = this.inner.apply(obj);
    this.#set(this.#bytes + this.sizeOf(obj) - (old ? this.sizeOf(old) : 0));
    return old;
  }

  /** Removes `obj`, and its size. */
  delete(obj: KubeObject): T | undefined {
    const old = this.inner.delete(obj);
    if (old) this.#set(this.#bytes - this.sizeOf(old));
    return old;
  }

  /** Replaces everything: the size is the new objects' sum. */
  replace(objects: Iterable<T>): T[] {
    const fresh = [...objects];
    const removed = this.inner.replace(fresh);
    this.#set(fresh.reduce((sum, obj) => sum + this.sizeOf(obj), 0));
    return removed;
  }

  /** Adds an index to the store. */
  addIndexer(name: string, indexer: Indexer<T>): void {
    this.inner.addIndexer(name, indexer);
  }

  #set(bytes: number): void {
    this.#bytes = bytes;
    this.changed(bytes);
  }
}
