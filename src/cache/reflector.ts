/**
 * Folds a watch's events into a store and reports what changed. A relist (`init` …
 * `initDone`) is buffered and swapped in at `initDone`, producing an add for each new object, an
 * update for every object that was already stored — changed or not, as client-go's `Replace`
 * re-delivers the whole list — and a delete for each object that vanished while the watch was away.
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
  let buffer: Map<string, T> | undefined;
  let everSynced = false;
  for await (const event of events) {
    switch (event.type) {
      case "init":
        buffer = new Map();
        break;
      case "initApply":
        buffer?.set(keyOf(event.object), transform(event.object));
        break;
      case "initDone":
        yield* swapIn(store, buffer ?? new Map(), !everSynced);
        everSynced = true;
        buffer = undefined;
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

function* swapIn<T extends KubeObject>(
  store: { reader: StoreReader<T>; writer: StoreWriter<T> },
  fresh: Map<string, T>,
  initial: boolean,
): Generator<Change<T>> {
  const changes: Change<T>[] = [];
  for (const [key, object] of fresh) {
    const old = store.reader.get(key);
    changes.push(old ? { type: "update", old, object } : { type: "add", object, initial });
  }
  for (const object of store.writer.replace(fresh.values())) changes.push({ type: "delete", object });
  yield* changes;
}
