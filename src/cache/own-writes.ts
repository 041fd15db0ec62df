/**
 * Read your own writes: the resourceVersion each write of a reconcile left on the server, kept per
 * reconciled key, and a bounded wait before that key's next reconcile until the informers have
 * seen those writes, so that the reconcile never reads a cached object older than its own last
 * write of it (it does not re-create the child it just created, nor act on the status it just
 * replaced). controller-runtime v0.25's experimental `ReadYourOwnWriteConsistencyEnabled` keeps
 * the same watermarks (kind, key, resourceVersion; a deleted object's UID) and waits in its cached
 * `Get`/`List`; kubeloop's cached reads are synchronous (`ctx.object`, `CacheReader.get`), so the
 * wait happens once, before the reconcile that reads them.
 *
 * A written object someone else deleted since (a user, the garbage collector) is never held again:
 * it counts as observed once the informers lack it at a resourceVersion past the write (their
 * `lastSyncResourceVersion`: a delete event's, a relist's), as controller-runtime's watermark of
 * observed resourceVersions passes the write on the delete event. A delete older than the write
 * (of an earlier incarnation) does not count.
 */
import { type KubeObject, objectKey, type ResourceType } from "../api/index.ts";
import type { Written } from "../client/index.ts";
import { type Clock, systemClock, type Timer } from "../clock/index.ts";
import type { InformerCache } from "./cache.ts";
import type { Informer } from "./informer.ts";
import { type LabelSelectorMatcher, parseLabelSelector } from "./labels.ts";

/** How a wait for a key's own writes ended: they were observed, or the bound passed first. */
export type OwnWriteWait = "observed" | "timeout";

/** The default bound of a wait for a key's own writes. */
export const defaultOwnWriteWaitMs = 5_000;

/** One written object, as its next reader must find it. */
interface Mark {
  readonly type: ResourceType;
  readonly key: string;
  readonly namespace: string | undefined;
  readonly labels: Readonly<Record<string, string>> | undefined;
  /** The written resourceVersion: cached copies must be at it or newer. Absent for a deletion. */
  readonly resourceVersion: string | undefined;
  /** A deleted object's UID: no cached copy of it may remain. */
  readonly goneUid: string | undefined;
  /** When it was written (monotonic ms): past the wait's bound, a sweep forgets it. */
  readonly at: number;
}

/** Who a wait tells of an informer's changes: by object key, and on each resourceVersion it catches up to. */
interface Listeners {
  readonly byKey: Map<string, Set<() => void>>;
  readonly progress: Set<() => void>;
}

/** Sweeps start at this many keys with marks, then at twice what the last sweep kept. */
const firstSweepAt = 1024;

/** The watermarks of a controller's writes, and the waits on them. */
export class OwnWrites {
  readonly #cache: InformerCache;
  readonly #clock: Clock;
  readonly #timeoutMs: number;
  /** Reconciled key → written object (`apiVersion/kind key`) → its mark. */
  readonly #marks = new Map<string, Map<string, Mark>>();
  /** Per informer, who to tell when it changes an object (by key) and when it catches up further. */
  readonly #listeners = new WeakMap<Informer<KubeObject>, Listeners>();
  readonly #selectors = new WeakMap<Informer<KubeObject>, LabelSelectorMatcher>();
  #sweepAt = firstSweepAt;

  constructor(cache: InformerCache, { clock = systemClock, timeoutMs = defaultOwnWriteWaitMs } = {}) {
    this.#cache = cache;
    this.#clock = clock;
    this.#timeoutMs = timeoutMs;
  }

  /** Records a write made while reconciling `reconciled`; a later write of the same object replaces it. */
  record(reconciled: string, type: ResourceType, write: Written): void {
    const mark = this.#markOf(type, write);
    if (!mark) return;
    let marks = this.#marks.get(reconciled);
    if (!marks) {
      if (this.#marks.size >= this.#sweepAt) this.#sweep();
      marks = new Map();
      this.#marks.set(reconciled, marks);
    }
    marks.set(`${type.apiVersion}/${type.kind} ${mark.key}`, mark);
  }

  /**
   * Waits until the informers have observed every write recorded for `reconciled`, for at most the
   * bound, and forgets them. Resolves with how it ended, or undefined when nothing was left to
   * wait for; resolves at once when `signal` aborts.
   */
  async caughtUp(reconciled: string, signal: AbortSignal): Promise<OwnWriteWait | undefined> {
    const marks = this.#marks.get(reconciled);
    if (!marks) return undefined;
    this.#marks.delete(reconciled);
    const pending = [...marks.values()].filter((mark) => !this.#observed(mark));
    if (pending.length === 0) return undefined;
    return this.#until(pending, signal);
  }

  /** How many keys have marks: what the sweep keeps bounded. */
  get size(): number {
    return this.#marks.size;
  }

  #markOf(type: ResourceType, { name, namespace, object, deleted }: Written): Mark | undefined {
    const key = objectKey(type.namespaced ? namespace : undefined, name);
    const rv = object?.metadata.resourceVersion;
    const at = this.#clock.monotonicMs();
    const labels = object?.metadata.labels;
    // A deletion that waits on finalizers left the object in place, at a new resourceVersion.
    const stays = !deleted || (object?.metadata.finalizers?.length ?? 0) > 0;
    if (stays) {
      if (!comparable(rv)) return undefined;
      return { type, key, namespace, labels, resourceVersion: rv, goneUid: undefined, at };
    }
    // A delete answered with a Status names no UID: the cached copy's is the one that must go.
    const uid =
      object?.metadata.uid ?? this.#informersOf(type, namespace, labels)[0]?.store.get(key)?.metadata.uid;
    if (uid === undefined) return undefined;
    return { type, key, namespace, labels, resourceVersion: undefined, goneUid: uid, at };
  }

  /**
   * Whether the informers that may hold the object (`informers`, when the caller resolved them
   * already) show it as written, or as gone since (no informer: nothing cached is stale).
   */
  #observed(mark: Mark, informers = this.#informersOf(mark.type, mark.namespace, mark.labels)): boolean {
    if (mark.goneUid !== undefined)
      return informers.every((i) => i.store.get(mark.key)?.metadata.uid !== mark.goneUid);
    if (informers.length === 0) return true;
    const rv = mark.resourceVersion as string;
    const cached = informers.map((i) => i.store.get(mark.key));
    if (cached.some((obj) => atLeast(obj?.metadata.resourceVersion, rv))) return true;
    // Deleted (or out of scope) after the write: every informer lacks it, and is past the write.
    return informers.every((i, n) => cached[n] === undefined && atLeast(i.lastSyncResourceVersion, rv));
  }

  /**
   * The informers of `type` whose namespace and label selector take an object of `namespace` with
   * `labels`. An informer that filters otherwise (fields, shards) counts: the object is observed when
   * one of them holds it, or when none holds it and all are past the write.
   */
  #informersOf(
    type: ResourceType,
    namespace: string | undefined,
    labels: Readonly<Record<string, string>> | undefined,
  ): Informer<KubeObject>[] {
    return this.#cache.informers().filter((informer) => {
      if (informer.type.kind !== type.kind || informer.type.apiVersion !== type.apiVersion) return false;
      const scope = informer.scope;
      if (scope.namespace && type.namespaced && scope.namespace !== namespace) return false;
      return !scope.labelSelector || this.#selectorOf(informer).matches(labels);
    });
  }

  #selectorOf(informer: Informer<KubeObject>): LabelSelectorMatcher {
    let selector = this.#selectors.get(informer);
    if (!selector) {
      selector = parseLabelSelector(informer.scope.labelSelector ?? "");
      this.#selectors.set(informer, selector);
    }
    return selector;
  }

  /** Resolves once every mark is observed ("observed"), after the bound ("timeout"), or when `signal` aborts. */
  #until(pending: Mark[], signal: AbortSignal): Promise<OwnWriteWait | undefined> {
    return new Promise((resolve) => {
      const unsubscribes: (() => void)[] = [];
      let timer: Timer | undefined;
      const end = (outcome: OwnWriteWait | undefined) => {
        timer?.cancel();
        signal.removeEventListener("abort", aborted);
        for (const unsubscribe of unsubscribes) unsubscribe();
        resolve(outcome);
      };
      const aborted = () => end(undefined);
      // Each mark's informers are resolved once per wait, not again on every change of its object.
      const watched = pending.map((mark) => ({
        mark,
        informers: this.#informersOf(mark.type, mark.namespace, mark.labels),
      }));
      const check = () => {
        if (watched.every(({ mark, informers }) => this.#observed(mark, informers))) end("observed");
      };
      for (const { mark, informers } of watched) {
        for (const informer of informers) unsubscribes.push(this.#onChange(informer, mark.key, check));
      }
      // A delete, or a relist without the object, is observed once the informer is past it.
      const informers = new Set(watched.flatMap(({ informers }) => informers));
      for (const informer of informers) unsubscribes.push(this.#onProgress(informer, check));
      timer = this.#clock.setTimer(this.#timeoutMs, () => end("timeout"));
      if (signal.aborted) end(undefined);
      else signal.addEventListener("abort", aborted, { once: true });
    });
  }

  /** Calls `fn` whenever `informer` changes the object at `key` (a relist's delete too); returns how to stop. */
  #onChange(informer: Informer<KubeObject>, key: string, fn: () => void): () => void {
    const { byKey } = this.#listenersOf(informer);
    const set = byKey.get(key) ?? new Set();
    byKey.set(key, set);
    set.add(fn);
    return () => {
      set.delete(fn);
      if (set.size === 0) byKey.delete(key);
    };
  }

  /** Calls `fn` whenever `informer` catches up to a resourceVersion; returns how to stop. */
  #onProgress(informer: Informer<KubeObject>, fn: () => void): () => void {
    const { progress } = this.#listenersOf(informer);
    progress.add(fn);
    return () => progress.delete(fn);
  }

  /** The listeners of `informer`, told by one handler of it, added on first use. */
  #listenersOf(informer: Informer<KubeObject>): Listeners {
    let listeners = this.#listeners.get(informer);
    if (listeners) return listeners;
    const { byKey, progress }: Listeners = { byKey: new Map(), progress: new Set() };
    const tell = (obj: KubeObject) => {
      for (const fn of byKey.get(objectKey(obj.metadata.namespace, obj.metadata.name ?? "")) ?? []) fn();
    };
    informer.addHandler(
      {
        onAdd: tell,
        onUpdate: (_old, obj) => tell(obj),
        onDelete: tell,
        onProgress: () => {
          for (const fn of progress) fn();
        },
      },
      { replay: false },
    );
    listeners = { byKey, progress };
    this.#listeners.set(informer, listeners);
    return listeners;
  }

  /** Forgets the keys whose writes were all observed or are older than the bound: the marks stay few. */
  #sweep(): void {
    const stale = this.#clock.monotonicMs() - this.#timeoutMs;
    for (const [reconciled, marks] of this.#marks) {
      for (const [id, mark] of marks) if (mark.at < stale || this.#observed(mark)) marks.delete(id);
      if (marks.size === 0) this.#marks.delete(reconciled);
    }
    this.#sweepAt = Math.max(firstSweepAt, 2 * this.#marks.size);
  }
}

/**
 * resourceVersions are opaque by the API conventions, but since Kubernetes 1.35 the apiserver
 * guarantees they are decimal integers that grow within a resource type (KEP-5504, a conformance
 * requirement; controller-runtime's consistent client parses them as int64 likewise). Only such
 * versions are compared; an object written with any other is not waited for.
 */
function comparable(rv: string | undefined): rv is string {
  return rv !== undefined && /^[1-9]\d*$/.test(rv);
}

/** Whether `cached` is `written` or newer: decimal integers without leading zeros, compared without loss. */
function atLeast(cached: string | undefined, written: string): boolean {
  if (!comparable(cached)) return false;
  return cached.length !== written.length ? cached.length > written.length : cached >= written;
}
