/**
 * One watch per kind for all the shards a replica holds. A shard taken first watches its own range,
 * so that it is reconciled at once; once the shards held have stayed the same for a while, one
 * informer whose shard selector joins all their ranges (`shardRange(...) || ...`) replaces the
 * shards' own, and each shard sees it through a filter of its range. The apiserver then keeps one
 * watch per kind and replica instead of one per shard, and a replica one connection and one store.
 *
 * A shard's controllers hold a {@link MovableView} of the informer, never the informer itself: when
 * the view moves, its handlers move with it and are told what differs between the two stores, so
 * that no change is lost and nothing already known is queued again.
 */
import type { Logger } from "pino";
import { type KubeObject, keyOf, type ResourceType } from "../api/index.ts";
import {
  type Indexer,
  type Informer,
  type InformerCache,
  type InformerHandler,
  type InformerScope,
  InformerStoppedError,
  type StoreReader,
} from "../cache/index.ts";
import type { Clock, Timer } from "../clock/index.ts";
import type { HeldShard } from "./coordinator.ts";

/** Whether an object belongs to the view: its shard's range of a merged informer. */
type Keep = (obj: KubeObject) => boolean;

/**
 * An informer as one shard sees it, through the shard's filter (`keep`) where the source holds
 * other shards' objects too, and whose source can move from the shard's own informer to the
 * replica's merged one: reads go to the current source, handlers are moved with it, and indexes and
 * kept writers are asked of each source it moves to. {@link MovableView.close} removes the handlers
 * added through it (the shard stopped).
 */
export class MovableView<T extends KubeObject> {
  /** The informer to hand to a shard's controllers. */
  readonly informer: Informer<T>;
  /** The source's store, filtered to the shard, whatever the source is now. */
  readonly store: StoreReader<T>;
  readonly indexers = new Map<string, Indexer<T>>();
  retainsWriters = false;
  #source: Informer<T>;
  #keep: Keep | undefined;
  /** The source before the last move: its tombstones still tell deletions the new one never saw. */
  #previous: Informer<T> | undefined;
  readonly #handlers = new Map<InformerHandler<T>, () => void>();
  readonly #onError: (err: unknown) => void;

  constructor(source: Informer<T>, onError: (err: unknown) => void, keep?: Keep) {
    this.#source = source;
    this.#onError = onError;
    this.#keep = keep;
    this.store = this.#filteredStore();
    this.informer = this.#proxy();
  }

  /** The informer this view reads now. */
  get source(): Informer<T> {
    return this.#source;
  }

  /**
   * Reads `next` from now on, keeping what `keep` lets through. Its handlers are moved to `next`,
   * after being told, as watch events would, what `next` holds that the old source did not
   * (adds, updates by resourceVersion) and what it no longer holds (deletes).
   */
  moveTo(next: Informer<T>, keep: Keep): void {
    const before = new Map(this.store.keys().map((key) => [key, this.store.get(key) as T]));
    this.#previous = this.#source;
    this.#source = next;
    this.#keep = keep;
    for (const [handler, remove] of this.#handlers) {
      remove();
      this.#handlers.set(handler, next.addHandler(this.#filtered(handler), { replay: false }));
    }
    for (const object of this.store.list()) {
      const key = keyOf(object);
      const old = before.get(key);
      before.delete(key);
      if (!old) this.#tell((h) => h.onAdd?.(object, false));
      else if (old.metadata.resourceVersion !== object.metadata.resourceVersion)
        this.#tell((h) => h.onUpdate?.(old, object));
    }
    for (const old of before.values()) this.#tell((h) => h.onDelete?.(old));
  }

  /** Calls every handler; one that throws is reported and does not stop the others. */
  #tell(call: (handler: InformerHandler<T>) => void): void {
    for (const handler of this.#handlers.keys()) {
      try {
        call(handler);
      } catch (err) {
        this.#onError(err);
      }
    }
  }

  #kept(obj: T | undefined): T | undefined {
    return obj && (!this.#keep || this.#keep(obj)) ? obj : undefined;
  }

  #filtered(handler: InformerHandler<T>): InformerHandler<T> {
    return {
      onAdd: (obj, initial) => this.#kept(obj) && handler.onAdd?.(obj, initial),
      onUpdate: (old, obj) => this.#kept(obj) && handler.onUpdate?.(old, obj),
      onDelete: (obj) => this.#kept(obj) && handler.onDelete?.(obj),
    };
  }

  /** Removes every handler added through the view: the shard stopped. */
  close(): void {
    for (const remove of this.#handlers.values()) remove();
    this.#handlers.clear();
  }

  #filteredStore(): StoreReader<T> {
    const source = () => this.#source.store;
    const keep = (objects: T[]) => (this.#keep ? objects.filter(this.#keep) : objects);
    return {
      get: (key) => this.#kept(source().get(key)),
      list: (opts) => keep(source().list(opts)),
      byIndex: (index, value) => keep(source().byIndex(index, value)),
      keys: () =>
        this.#keep
          ? source()
              .keys()
              .filter((key) => this.#kept(source().get(key)))
          : source().keys(),
      get size() {
        return this.keys().length;
      },
    };
  }

  /**
   * Waits for the source to sync; when the source stops unsynced because the view moved off it
   * (onto a merged informer that synced first), waits for the new source instead.
   */
  async #waitForSync(signal?: AbortSignal, timeoutMs?: number): Promise<void> {
    for (;;) {
      const source = this.#source;
      try {
        return await source.waitForSync(signal, timeoutMs);
      } catch (err) {
        if (!(err instanceof InformerStoppedError) || this.#source === source) throw err;
      }
    }
  }

  #proxy(): Informer<T> {
    const members: Partial<Record<keyof Informer<T>, unknown>> = {
      store: this.store,
      addHandler: (handler: InformerHandler<T>) => {
        const remove = this.#source.addHandler(this.#filtered(handler));
        this.#handlers.set(handler, remove);
        return () => {
          this.#handlers.get(handler)?.();
          this.#handlers.delete(handler);
        };
      },
      tombstone: (key: string) => this.#kept(this.#source.tombstone(key) ?? this.#previous?.tombstone(key)),
      addIndexer: (name: string, indexer: Indexer<T>) => {
        this.indexers.set(name, indexer);
        this.#source.addIndexer(name, indexer);
      },
      retainWriters: () => {
        this.retainsWriters = true;
        this.#source.retainWriters();
      },
      waitForSync: (signal?: AbortSignal, timeoutMs?: number) => this.#waitForSync(signal, timeoutMs),
    };
    const view = this;
    return new Proxy({} as Informer<T>, {
      get(_, property) {
        if (property in members) return members[property as keyof Informer<T>];
        // The source itself as receiver: its private fields are not the proxy's.
        const value: unknown = Reflect.get(view.#source, property, view.#source);
        return typeof value === "function" ? value.bind(view.#source) : value;
      },
    });
  }
}

/**
 * How the informers of several shards of one kind merge into one: the scope that holds the objects
 * of the shards given, and what belongs to one of them. Shards whose routes have the same `by` and
 * `base` merge.
 */
export interface Route {
  /** What places objects in shards: a hashed field (`uid`, `namespace`) or a label. */
  readonly by: string;
  /** The scope the shards narrow: the same for every shard of the kind. */
  readonly base: InformerScope;
  /** The scope of `shards` together. */
  scopeOf(shards: readonly HeldShard[]): InformerScope;
  /** Whether an object of the merged scope is `shard`'s. */
  keeps(shard: HeldShard): Keep;
}

/** What identifies the views of `type` that merge along `route`: kind, what places objects, and the scope narrowed. */
export function routeId(type: ResourceType, route: Route): string {
  return `${type.apiVersion}/${type.kind}?${route.by}?${JSON.stringify(route.base)}`;
}

/** A shard's view of one kind, and the informer of its own it reads until merged. */
interface Attached {
  readonly shard: HeldShard;
  readonly view: MovableView<KubeObject>;
  /** The shard's own informer: in the shard's cache, at this scope; gone once the view moved. */
  own?: { readonly cache: InformerCache; readonly scope: InformerScope };
}

/** The views of one kind and route across the shards held, and the merged informer they read. */
interface Group {
  readonly type: ResourceType;
  readonly route: Route;
  readonly views: Set<Attached>;
  merged?: {
    /** The shards it holds the objects of. */
    readonly shards: ReadonlySet<number>;
    readonly scope: InformerScope;
    readonly informer: Informer<KubeObject>;
  };
}

/** Options of a {@link WatchMerger}. */
export interface WatchMergerOptions {
  /** Where merged informers are made (the manager's shared cache, started). */
  readonly cache: InformerCache;
  /** How long the shards held must stay the same before their watches are merged. */
  readonly settleMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Aborts when the replica stops: no merge starts after that. */
  readonly signal: AbortSignal;
  /** How long a merged informer may take to sync before the merge is given up. */
  readonly syncTimeoutMs: number;
}

/**
 * Merges the watches of a replica's shards, per kind and scope: {@link WatchMerger.attach} a
 * shard's view when the shard starts; a while after the last shard came or went, one informer
 * over all the shards' ranges is started, and once it synced every view moves onto it and the
 * informers it replaces are stopped, their memory freed. A released shard's range stays in the
 * merged watch until the next merge.
 */
export class WatchMerger {
  readonly #options: WatchMergerOptions;
  readonly #groups = new Map<string, Group>();
  #timer: Timer | undefined;
  #merging: Promise<void> = Promise.resolve();

  constructor(options: WatchMergerOptions) {
    this.#options = options;
    options.signal.addEventListener("abort", () => this.#timer?.cancel(), { once: true });
  }

  /**
   * Counts `attached.view` (of `attached.shard`, reading its own informer in `own.cache` at
   * `own.scope`) among the views of `type` merged along `route`; returns what takes it out, when
   * the shard stops.
   */
  attach(type: ResourceType, route: Route, attached: Attached): () => void {
    const id = routeId(type, route);
    const group = this.#groups.get(id) ?? { type, route, views: new Set<Attached>() };
    this.#groups.set(id, group);
    const entry: Attached = { ...attached };
    group.views.add(entry);
    this.#schedule();
    return () => {
      group.views.delete(entry);
      this.#schedule();
    };
  }

  #schedule(): void {
    this.#timer?.cancel();
    if (this.#options.signal.aborted) return;
    this.#timer = this.#options.clock.setTimer(this.#options.settleMs, () => {
      this.#merging = this.#merging.then(() => this.#mergeAll());
    });
  }

  async #mergeAll(): Promise<void> {
    for (const group of this.#groups.values()) {
      if (this.#options.signal.aborted) return;
      try {
        await this.#merge(group);
      } catch (err) {
        this.#options.logger.warn(
          { err, kind: group.type.kind },
          "sharding: could not merge the shards' watches; each shard keeps its own",
        );
      }
    }
  }

  async #merge(group: Group): Promise<void> {
    const { cache, signal } = this.#options;
    const attached = [...group.views];
    const shards = new Set(attached.map((a) => a.shard.index));
    const current = group.merged;
    const same =
      current && current.shards.size === shards.size && [...shards].every((i) => current.shards.has(i));
    if (same && attached.every((a) => a.view.source === current.informer)) return;
    if (attached.length === 0) {
      group.merged = undefined;
      if (current) await cache.remove(group.type, current.scope);
      return;
    }
    const scope = same ? current.scope : group.route.scopeOf(attached.map((a) => a.shard));
    const indexers = Object.fromEntries(attached.flatMap((a) => [...a.view.indexers]));
    const informer = cache.informer(group.type, scope, indexers);
    if (attached.some((a) => a.view.retainsWriters)) informer.retainWriters();
    try {
      await informer.waitForSync(signal, this.#options.syncTimeoutMs);
    } catch (err) {
      if (current?.informer !== informer) await cache.remove(group.type, scope);
      throw err;
    }
    group.merged = { shards, scope, informer };
    // Shards may have come or gone while it synced: move those it holds; the others wait for the next merge.
    for (const a of group.views) {
      if (a.view.source === informer || !shards.has(a.shard.index)) continue;
      a.view.moveTo(informer, group.route.keeps(a.shard));
      if (a.own) await a.own.cache.remove(group.type, a.own.scope);
      a.own = undefined;
    }
    if (current && current.informer !== informer) await cache.remove(group.type, current.scope);
    this.#options.logger.info(
      { kind: group.type.kind, shards: shards.size, by: group.route.by },
      "sharding: the shards' watches merged into one",
    );
  }
}
