/**
 * The machinery of the periodic relist (see `../relist.ts`): when the next one is due, how a list
 * is compared with the store, and the loop that runs them.
 */
import { type KubeObject, keyOf, type ObjectKey } from "../../api/index.ts";
import type { ObjectList } from "../../client/index.ts";
import type { Clock } from "../../clock/index.ts";
import type { Backoff } from "../../watch/index.ts";
import { InvalidRelistOptionsError } from "../errors.ts";
import type { DivergenceKind, RelistOptions } from "../relist.ts";
import type { StoreReader } from "../store.ts";
import { followAbort } from "./shared-abort.ts";

/** One difference between a list and the store. `object` is the listed one, or the stored one for `deleted`. */
export interface Divergence<T extends KubeObject> {
  change: DivergenceKind;
  object: T;
}

/** The default relist period: 4 minutes (see {@link RelistOptions.periodMs} for why). */
export const defaultRelistPeriodMs = 4 * 60_000;
const defaultJitter = 0.1;

/**
 * The delay before the next relist, or `undefined` when relisting is off (`false`, or a period
 * of 0). Throws {@link InvalidRelistOptionsError} for a negative or non-finite period, or a
 * jitter outside [0, 1).
 */
export function relistDelayMs(
  options: RelistOptions | false | undefined,
  random: () => number = Math.random,
): number | undefined {
  if (options === false) return undefined;
  const { periodMs = defaultRelistPeriodMs, jitter = defaultJitter } = options ?? {};
  if (!(Number.isFinite(periodMs) && periodMs >= 0))
    throw new InvalidRelistOptionsError("periodMs", periodMs);
  if (!(Number.isFinite(jitter) && jitter >= 0 && jitter < 1))
    throw new InvalidRelistOptionsError("jitter", jitter);
  return periodMs === 0 ? undefined : periodMs * (1 + jitter * (2 * random() - 1));
}

/**
 * A resourceVersion as an etcd revision, or undefined when it is not one. Kubernetes calls
 * resourceVersions opaque; kubeloop orders them only to compare a store with a list of the same
 * apiserver, where they are etcd revisions (the watch cache's own `resourceVersion` arithmetic
 * relies on the same).
 */
function revision(resourceVersion: string | undefined): bigint | undefined {
  return resourceVersion && /^\d+$/.test(resourceVersion) ? BigInt(resourceVersion) : undefined;
}

/** True when `obj` was last written at or before `watermark` (false when either is no revision). */
function writtenBy(obj: KubeObject, watermark: bigint | undefined): boolean {
  return atOrBefore(revision(obj.metadata.resourceVersion), watermark);
}

/** True when both are revisions and `rv` is not past `bound`. */
function atOrBefore(rv: bigint | undefined, bound: bigint | undefined): boolean {
  return rv !== undefined && bound !== undefined && rv <= bound;
}

/** True when the stored object is the listed one: same uid and resourceVersion. */
function same(stored: KubeObject | undefined, listed: KubeObject): boolean {
  return (
    stored?.metadata.uid === listed.metadata.uid &&
    stored?.metadata.resourceVersion === listed.metadata.resourceVersion
  );
}

/**
 * A relist in progress: the keys listed so far and the listed objects that differed from the
 * store when they arrived. Objects that matched need no second look: the store can only move
 * past them, through the watch.
 */
export class ListComparison<T extends KubeObject> {
  readonly #store: StoreReader<T>;
  readonly #listed = new Set<ObjectKey>();
  readonly #differing = new Map<ObjectKey, T>();
  readonly #deletedByWatch = new Set<ObjectKey>();
  #watermark: bigint | undefined;

  constructor(store: StoreReader<T>) {
    this.#store = store;
  }

  /** Takes one page of the list; `resourceVersion` is the list's (every page of a list has the same). */
  page(items: readonly T[], resourceVersion: string): void {
    this.#watermark = revision(resourceVersion);
    for (const item of items) {
      const key = keyOf(item);
      this.#listed.add(key);
      if (!same(this.#store.get(key), item)) this.#differing.set(key, item);
    }
  }

  /** The watch deleted `key` while the relist ran: whatever the list says, it must not come back. */
  deletedByWatch(key: ObjectKey): void {
    this.#deletedByWatch.add(key);
  }

  /** The list's resourceVersion as a revision: what the watch must reach before all of it is judged. */
  get watermark(): bigint | undefined {
    return this.#watermark;
  }

  /**
   * What the store lacks or holds wrongly, as of the list's resourceVersion (the watermark), judged
   * only where the watch has passed (`watched`: the revision up to which it delivered everything,
   * or `"all"` once it reached the list or went quiet), so that an event still on its way is not
   * taken for one missed:
   * - listed at or before `watched`, not stored and not deleted by the watch meanwhile: `added`;
   * - listed at or before `watched`, stored at or before the watermark with another
   *   resourceVersion: `updated`, or, with another uid (deleted and created again), `deleted` (the
   *   stored one) then `added`;
   * - stored at or before the watermark but not listed, once `watched` reached the watermark (the
   *   deletion happened at some point up to it): `deleted`.
   * Objects the watch wrote after the watermark are newer than the list and left alone, so a
   * relist never rolls the store back; they, objects listed past `watched`, and objects whose
   * resourceVersion is no etcd revision wait for the next relist if they are wrong.
   */
  divergences(watched: bigint | "all"): Divergence<T>[] {
    const found: Divergence<T>[] = [];
    const passed = (obj: KubeObject) => watched === "all" || writtenBy(obj, watched);
    for (const [key, object] of this.#differing) {
      if (!passed(object)) continue;
      const stored = this.#store.get(key);
      if (!stored) {
        if (!this.#deletedByWatch.has(key)) found.push({ change: "added", object });
      } else if (writtenBy(stored, this.#watermark) && !same(stored, object)) {
        if (stored.metadata.uid === object.metadata.uid) found.push({ change: "updated", object });
        else found.push({ change: "deleted", object: stored }, { change: "added", object });
      }
    }
    if (watched !== "all" && !atOrBefore(this.#watermark, watched)) return found;
    for (const key of this.#store.keys()) {
      const stored = this.#store.get(key) as T;
      if (!this.#listed.has(key) && writtenBy(stored, this.#watermark)) {
        found.push({ change: "deleted", object: stored });
      }
    }
    return found;
  }
}

/**
 * How long a watch behind a relist's list may deliver nothing before it is taken as quiet: no
 * event is on its way (an idle kind: its next bookmark may be a minute away), or the watch is stuck
 * and losing them; either way the whole list is judged. A watch delivering a backlog passes events
 * far more often than that; an apiserver whose watch cache trails etcd gives up after 3 s
 * (`waitUntilFreshAndBlock` in k8s.io/apiserver's cacher).
 */
export const quietMs = 5_000;

/**
 * The longest a relist waits for a watch that keeps delivering to reach its list's
 * resourceVersion; after that, only what the watch has passed is judged.
 */
export const catchUpLimitMs = 90_000;

/** What a {@link Relister} needs from its informer. */
export interface RelistTarget<T extends KubeObject> {
  readonly store: StoreReader<T>;
  /** Lists one page of the informer's scope, with a consistent read (no resourceVersion). */
  listPage(continueToken: string | undefined, signal: AbortSignal): Promise<ObjectList<T>>;
  /** Resolves once the informer first synced; rejects when `signal` aborts. */
  waitForSync(signal: AbortSignal): Promise<void>;
  /** Repairs the store and tells the handlers, atomically (no watch event in between). */
  heal(found: Divergence<T>[]): void;
  /** A relist failed; the next attempt comes after `retryInMs`. */
  failed(error: unknown, retryInMs: number): void;
}

/** An informer's periodic relists: jittered, paged, retried with backoff when they fail. */
export class Relister<T extends KubeObject> {
  readonly #target: RelistTarget<T>;
  readonly #options: RelistOptions | false | undefined;
  readonly #clock: Clock;
  readonly #backoff: Backoff;
  #comparison: ListComparison<T> | undefined;
  /** The revision up to which the watch has delivered everything. */
  #watched: bigint | undefined;
  /** Ends a relist's wait for the watch's next progress. */
  #onProgress: (() => void) | undefined;

  /** Throws {@link InvalidRelistOptionsError} for options that make no sense. */
  constructor(
    target: RelistTarget<T>,
    options: RelistOptions | false | undefined,
    clock: Clock,
    backoff: Backoff,
  ) {
    relistDelayMs(options);
    this.#target = target;
    this.#options = options;
    this.#clock = clock;
    this.#backoff = backoff;
  }

  /** The watch deleted `key`: a relist in flight must not bring it back. */
  deletedByWatch(key: ObjectKey): void {
    this.#comparison?.deletedByWatch(key);
  }

  /** The watch has delivered everything up to `resourceVersion` (a list's, an event's, a bookmark's). */
  progressed(resourceVersion: string): void {
    const rv = revision(resourceVersion);
    if (rv === undefined || (this.#watched !== undefined && rv <= this.#watched)) return;
    this.#watched = rv;
    this.#onProgress?.();
  }

  /** Relists every period from the first sync on, until `signal` aborts; never rejects. */
  async run(signal: AbortSignal): Promise<void> {
    let delay = relistDelayMs(this.#options);
    if (delay === undefined) return;
    try {
      await this.#target.waitForSync(signal);
      for (;;) {
        await this.#clock.sleep(delay, signal);
        delay = await this.#attempt(signal);
      }
    } catch {
      // Aborted: the informer stops.
    }
  }

  /** One relist; returns the delay until the next: a period, or a backoff after a failure. */
  async #attempt(signal: AbortSignal): Promise<number> {
    try {
      await this.#relist(signal);
      this.#backoff.reset();
      return relistDelayMs(this.#options) as number;
    } catch (err) {
      if (signal.aborted) throw err;
      const retryInMs = this.#backoff.next();
      this.#target.failed(err, retryInMs);
      return retryInMs;
    }
  }

  async #relist(signal: AbortSignal): Promise<void> {
    const comparison = new ListComparison(this.#target.store);
    this.#comparison = comparison;
    try {
      let page: ObjectList<T> | undefined;
      do {
        page = await this.#target.listPage(page?.continue, signal);
        comparison.page(page.items, page.resourceVersion);
      } while (page.continue);
      const upTo = await this.#judgeable(comparison.watermark, signal);
      this.#target.heal(comparison.divergences(upTo));
    } finally {
      this.#comparison = undefined;
    }
  }

  /**
   * How far the list can be judged: waits for the watch to reach the list's revision, so that the
   * events the list already reflects land first (then, or when the watch went {@link quietMs}
   * without delivering anything, all of it), or for {@link catchUpLimitMs} while it keeps
   * delivering (then, up to where it got). client-go's reflector has no such wait: it replaces its
   * store with each list and never compares; a relist here compares, to hand handlers only what differs.
   */
  async #judgeable(listed: bigint | undefined, signal: AbortSignal): Promise<bigint | "all"> {
    const deadline = this.#clock.monotonicMs() + catchUpLimitMs;
    while (listed !== undefined && !atOrBefore(listed, this.#watched)) {
      if (!(await this.#progressWithin(quietMs, signal))) return "all";
      if (this.#clock.monotonicMs() >= deadline) return this.#watched as bigint;
    }
    return "all";
  }

  /** True when the watch progressed within `ms`, false when it did not; rejects when `signal` aborts. */
  async #progressWithin(ms: number, signal: AbortSignal): Promise<boolean> {
    signal.throwIfAborted();
    const wait = new AbortController();
    let progressed = false;
    this.#onProgress = () => {
      progressed = true;
      wait.abort();
    };
    const release = followAbort(signal, (reason) => wait.abort(reason));
    try {
      await this.#clock.sleep(ms, wait.signal).catch(() => {});
    } finally {
      release();
      this.#onProgress = undefined;
    }
    signal.throwIfAborted();
    return progressed;
  }
}
