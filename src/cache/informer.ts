/**
 * An informer: one watch of one kind and scope, kept in a store, fanned out to handlers.
 * Handler errors are caught and reported; they never stop the watch or the process.
 */
import { type KubeObject, keyOf, type ResourceType } from "../api/index.ts";
import { type Clock, systemClock } from "../clock/index.ts";
import { type WatchClient, type WatcherOptions, type WatchMetrics, watch } from "../watch/index.ts";
import { internStrings } from "./intern.ts";
import {
  type Change,
  reflect,
  stripManagedFields,
  summarizeManagedFields,
  type Transform,
} from "./reflector.ts";
import { createStore, type Indexer, type StoreReader, type StoreWriter } from "./store.ts";

const tombstoneTtlMs = 10 * 60_000;
const maxTombstones = 1000;

/** What an informer watches: a kind, optionally narrowed. */
export interface InformerScope {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Watch and store only metadata. */
  metadataOnly?: boolean;
}

/** Callbacks for store changes. `initial` is true for objects of the first list. */
export interface InformerHandler<T extends KubeObject> {
  onAdd?(obj: T, initial: boolean): void;
  onUpdate?(old: T, obj: T): void;
  onDelete?(obj: T): void;
}

/** Options of an {@link Informer}. */
export interface InformerOptions<T extends KubeObject> extends InformerScope {
  /**
   * Rewrites objects before they are stored. Default: drop `managedFields` (or keep a summary for
   * owned kinds) and share repeated strings ({@link internStrings}). Pass `(o) => o` to keep everything.
   */
  transform?: Transform<T>;
  /** Extra indexes for {@link StoreReader.byIndex}. */
  indexers?: Record<string, Indexer<T>>;
  /** Watch tuning (inactivity, backoff, initial state). */
  watch?: Pick<WatcherOptions, "inactivityMs" | "backoff" | "initialState" | "pageSize" | "timeoutSeconds">;
  /** Called with handler errors and watch failures. */
  onError?: (err: unknown, context: string) => void;
  metrics?: WatchMetrics;
  clock?: Clock;
}

/** A running watch of one kind and scope, with a store and handlers. */
export class Informer<T extends KubeObject> {
  /** What is watched. */
  readonly type: ResourceType<T>;
  readonly scope: InformerScope;
  /** The store; read-only for everyone but the informer. */
  readonly store: StoreReader<T>;
  readonly #writer: { reader: StoreReader<T>; writer: StoreWriter<T> };
  readonly #options: InformerOptions<T>;
  readonly #handlers = new Set<InformerHandler<T>>();
  readonly #clock: Clock;
  #synced = false;
  #syncedWaiters: (() => void)[] = [];
  #lastEventAt: number | undefined;
  #running: Promise<void> | undefined;
  #retainWriters = false;
  readonly #tombstones = new Map<string, { object: T; at: number }>();

  constructor(
    private readonly client: WatchClient,
    type: ResourceType<T>,
    options: InformerOptions<T> = {},
  ) {
    this.type = type;
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    const { namespace, labelSelector, fieldSelector, metadataOnly } = options;
    this.scope = { namespace, labelSelector, fieldSelector, metadataOnly };
    const store = createStore<T>(options.indexers);
    this.store = store.reader;
    this.#writer = store;
  }

  /** True once the first list has been stored. */
  get synced(): boolean {
    return this.#synced;
  }

  /** Milliseconds since the last change arrived, or undefined before any. */
  get msSinceLastEvent(): number | undefined {
    return this.#lastEventAt === undefined ? undefined : this.#clock.now() - this.#lastEventAt;
  }

  /** Resolves once the first list has been stored (or when `signal` aborts). */
  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.#synced || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      this.#syncedWaiters.push(resolve);
      signal?.addEventListener("abort", () => resolve(), { once: true });
    });
  }

  /**
   * Registers a handler. When the informer has already synced, the handler first receives an
   * `onAdd(obj, true)` for every stored object, so late subscribers see the full state.
   * Returns a function that unregisters it.
   */
  addHandler(handler: InformerHandler<T>): () => void {
    this.#handlers.add(handler);
    if (this.#synced)
      for (const obj of this.store.list()) this.#call(handler, { type: "add", object: obj, initial: true });
    return () => this.#handlers.delete(handler);
  }

  /**
   * Keeps a summary of `managedFields` (who wrote each object, and how) instead of dropping it,
   * for objects stored from now on. Owned kinds ask for it so drift can be attributed. Has no
   * effect when a custom transform was given.
   */
  retainWriters(): void {
    this.#retainWriters = true;
  }

  /** The last state of an object deleted within the last 10 minutes, for attributing the deletion. */
  tombstone(key: string): T | undefined {
    const entry = this.#tombstones.get(key);
    return entry && this.#clock.now() - entry.at < tombstoneTtlMs ? entry.object : undefined;
  }

  /** Adds an index to the store (a name already present is kept). */
  addIndexer(name: string, indexer: Indexer<T>): void {
    this.#writer.writer.addIndexer(name, indexer);
  }

  /** Starts watching (once); runs until `signal` aborts. */
  start(signal: AbortSignal): Promise<void> {
    this.#running ??= this.#run(signal);
    return this.#running;
  }

  async #run(signal: AbortSignal): Promise<void> {
    const { metrics, clock } = this.#options;
    const intern = internStrings<T>();
    const transform: Transform<T> =
      this.#options.transform ??
      ((obj) => intern((this.#retainWriters ? summarizeManagedFields : stripManagedFields)(obj)));
    const events = watch(this.client, this.type, {
      ...this.scope,
      ...this.#options.watch,
      metrics: { ...metrics, retry: (err, delayMs) => this.#watchRetry(err, delayMs) },
      clock,
      signal,
    });
    try {
      for await (const change of reflect(this.#writer, events, transform)) {
        this.#lastEventAt = this.#clock.now();
        if (change.type === "synced") this.#markSynced();
        else {
          if (change.type === "delete") this.#bury(change.object);
          for (const handler of this.#handlers) this.#call(handler, change);
        }
      }
    } catch (err) {
      if (!signal.aborted) this.#options.onError?.(err, `informer ${this.type.kind} stopped`);
    }
  }

  #bury(object: T): void {
    const now = this.#clock.now();
    for (const [key, entry] of this.#tombstones) {
      if (now - entry.at >= tombstoneTtlMs || this.#tombstones.size >= maxTombstones)
        this.#tombstones.delete(key);
      else break;
    }
    this.#tombstones.set(keyOf(object), { object, at: now });
  }

  #watchRetry(err: unknown, delayMs: number): void {
    this.#options.metrics?.retry?.(err, delayMs);
    this.#options.onError?.(err, `watch of ${this.type.kind} failed; retrying in ${Math.round(delayMs)} ms`);
  }

  #markSynced(): void {
    if (this.#synced) return;
    this.#synced = true;
    for (const resolve of this.#syncedWaiters.splice(0)) resolve();
  }

  #call(handler: InformerHandler<T>, change: Exclude<Change<T>, { type: "synced" }>): void {
    try {
      if (change.type === "add") handler.onAdd?.(change.object, change.initial);
      else if (change.type === "update") handler.onUpdate?.(change.old, change.object);
      else handler.onDelete?.(change.object);
    } catch (err) {
      this.#options.onError?.(err, `${this.type.kind} handler failed on ${change.type}`);
    }
  }
}
