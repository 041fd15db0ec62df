/**
 * Folds a watch's events into a store and reports what changed. A relist (`init` … `initDone`)
 * is applied object by object as its pages arrive: an add for each new object, an update for every
 * object that was already stored — changed or not, as client-go's `Replace` re-delivers the whole
 * list — and, at `initDone`, a delete for each stored object the list did not contain.
 *
 * Where this differs from client-go: its reflector (and its watch-list's temporary store) buffers
 * the whole list and hands it to `Replace` in one step, so readers switch from the old content to
 * the new atomically — but the list and the store coexist, and a relist of a large kind about
 * doubles the cache's memory. Here only the set of keys seen is held beside the store. During a
 * relist a reader sees each object either as it was or as the list has it (both consistent reads,
 * the list's being newer), and objects gone from the cluster until `initDone`. A list that fails
 * halfway leaves its objects applied (they are newer than what they replaced) and deletes nothing;
 * the next `init` starts a fresh set of keys.
 */
import { type KubeObject, keyOf } from "../api/index.ts";
import type { WatchEvent } from "../watch/index.ts";
import type { StoreReader, StoreWriter } from "./store.ts";

/** A change to the store. `synced` marks the end of each (re)list. */
export type Change<T extends KubeObject> =
  | { type: "add"; object: T; initial: boolean }
  | { type: "update"; old: T; object: T }
  | { type: "delete"; object: T }
  | { type: "synced" };

/** Rewrites an object before it is stored (e.g. drops `managedFields`). */
export type Transform<T extends KubeObject> = (obj: T) => T;

/** The default transform: drops `metadata.managedFields`, which is often a third of an object's size. */
export function stripManagedFields<T extends KubeObject>(obj: T): T {
  if (!obj.metadata.managedFields) return obj;
  const { managedFields: _, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

/**
 * Keeps only who wrote the object and how — `manager`, `operation`, `time`, `subresource` of each
 * `managedFields` entry — and drops the field sets, which are the heavy part. Informers of owned
 * kinds use it so drift can be attributed to whoever changed a child.
 */
export function summarizeManagedFields<T extends KubeObject>(obj: T): T {
  const entries = obj.metadata.managedFields;
  if (!entries) return obj;
  const managedFields = entries.map(({ manager, operation, time, subresource }) => ({
    manager,
    operation,
    time,
    subresource,
  }));
  return { ...obj, metadata: { ...obj.metadata, managedFields } };
}

/**
 * Applies `events` to the store, yielding each resulting {@link Change}. After every (re)list,
 * each object of the list that was already stored comes out as an `update`, even when its
 * resourceVersion did not move (client-go's `Replace` semantics): a relist is also a chance to
 * repair whatever an earlier event's handling missed.
 */
export async function* reflect<T extends KubeObject>(
  store: { reader: StoreReader<T>; writer: StoreWriter<T> },
  events: AsyncIterable<WatchEvent<T>>,
  transform: Transform<T> = stripManagedFields,
): AsyncGenerator<Change<T>> {
  let seen = new Set<string>();
  let everSynced = false;
  for await (const event of events) {
    switch (event.type) {
      case "init":
        seen = new Set();
        break;
      case "initApply": {
        const object = transform(event.object);
        seen.add(keyOf(object));
        const old = store.writer.apply(object);
        yield old ? { type: "update", old, object } : { type: "add", object, initial: !everSynced };
        break;
      }
      case "initDone":
        for (const key of store.reader.keys()) {
          const gone = seen.has(key) ? undefined : store.reader.get(key);
          if (gone && store.writer.delete(gone)) yield { type: "delete", object: gone };
        }
        everSynced = true;
        seen = new Set();
        yield { type: "synced" };
        break;
      case "apply": {
        const object = transform(event.object);
        const old = store.writer.apply(object);
        yield old ? { type: "update", old, object } : { type: "add", object, initial: false };
        break;
      }
      case "delete": {
        const old = store.writer.delete(event.object);
        yield { type: "delete", object: old ?? transform(event.object) };
        break;
      }
    }
  }
}
