/**
 * The watcher state machine: list (or stream the initial state), then watch from that
 * resourceVersion with bookmarks and a randomised timeout; resume from the last resourceVersion
 * seen after a clean close or network error (backing off, never hot-looping); list again on
 * 410 Expired or a too-large resourceVersion; reconnect when a watch goes silent, and resume from
 * before a gap longer than a bookmark interval rather than past it.
 */
import type { KubeObject, ResourceType } from "../api/index.ts";
import {
  type ApiResponse,
  apiErrorFrom,
  apiserverAway,
  ClientClosedError,
  ExpiredError,
  InvalidError,
  KindNotFoundError,
  type ListOptions,
  type ObjectList,
  ServerTimeoutError,
  type WatchRequestOptions,
} from "../client/index.ts";
import { type Clock, systemClock } from "../clock/index.ts";
import { type ShardFilter, type ShardKey, type ShardRange, shardFilter } from "../sharding/index.ts";
import { Backoff } from "./backoff.ts";
import { WatchClosedEarlyError, WatchInactiveError } from "./errors.ts";
import type { RestartReason, WatchEvent, WatchMetrics } from "./events.ts";
import { decodeLines, type RawWatchEvent } from "./lines.ts";

/** The two client calls a watcher needs (a `Client` satisfies it). */
export interface WatchClient {
  listPage<T extends KubeObject>(
    type: ResourceType<T>,
    opts: ListOptions & { continue?: string },
  ): Promise<ObjectList<T>>;
  watchStream(type: ResourceType, opts: WatchRequestOptions): Promise<ApiResponse>;
}

/** The part of the hash space a watcher receives (`kubeloop/sharding`). */
export interface WatchShard {
  /** The field hashed: `uid`, or `namespace` to keep a namespace's objects together. */
  readonly key: ShardKey;
  readonly ranges: readonly ShardRange[];
}

/** Options of {@link watch}. */
export interface WatcherOptions {
  /** Watch one namespace; absent watches all. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Receive only metadata (`PartialObjectMetadata`), tagged with the watched kind. */
  metadataOnly?: boolean;
  /**
   * Only the objects whose hash falls in these ranges: asked of the server with a shard selector,
   * and checked again on every object received, since a server without the `ShardedListAndWatch`
   * feature gate ignores the selector (each object dropped so is reported to
   * `metrics.outsideShard`).
   */
  shard?: WatchShard;
  /** Page size of initial lists. Default 500. */
  pageSize?: number;
  /**
   * How to get the initial state: `streaming` (`sendInitialEvents`; a streaming attempt that
   * fails in any way falls back to a list at once, and a server that refuses it is only listed
   * from then on), or `list`. Default `streaming`.
   */
  initialState?: "streaming" | "list";
  /** Reconnect when nothing (not even a bookmark) arrives for this long. Default 180 s (three bookmark intervals). */
  inactivityMs?: number;
  /**
   * A stream that received nothing, not even a bookmark, for longer than this may have lost events:
   * the apiserver's watch cache sends every watch a bookmark about every 60 s while its kind changes.
   * What arrives after such a gap is not trusted: the watch resumes at once from the last
   * resourceVersion seen before it, so that the apiserver replays what came after (or answers 410
   * and the kind is listed again), and nothing is delivered twice. A kind that did not change sends
   * no bookmark, so its first event after a quiet minute costs one reconnect. Applies once the
   * server has sent a bookmark (a watch served from etcd sends none). Default 65 s.
   */
  gapMs?: number;
  /** Server-side watch timeout, drawn per connection. Default uniform in 300–600 s, as client-go. */
  timeoutSeconds?: () => number;
  /**
   * First and maximum retry delay. Default 800 ms and 30 s; while the apiserver is away (refused,
   * 502/503, timeouts) no delay exceeds 2 s, so that a watch is back within 2 s of the apiserver.
   */
  backoff?: { initialMs: number; maxMs: number };
  metrics?: WatchMetrics;
  /**
   * Told each resourceVersion the watch has caught up to — a list's, then each event's and
   * bookmark's — once the events before it were consumed: everything written up to it has been
   * delivered. An informer's relist compares only what the watch has passed.
   */
  onProgress?: (resourceVersion: string) => void;
  clock?: Clock;
  random?: () => number;
  signal?: AbortSignal;
}

const initialEventsEnd = "k8s.io/initial-events-end";

/**
 * How often the apiserver's watch cache sends a watch a bookmark, when the kind's resourceVersion
 * moved meanwhile (`defaultBookmarkFrequency` of k8s.io/apiserver's cacher, a constant since 1.17).
 */
const bookmarkIntervalMs = 60_000;
const defaultInactivityMs = 3 * bookmarkIntervalMs;
/** A bookmark interval and slack for a loaded apiserver or process (59.6–61.1 s measured on a loaded 2-core machine). */
const defaultGapMs = bookmarkIntervalMs + 5_000;

/**
 * The longest retry delay while the apiserver is away. client-go's reflector backs off to 30 s
 * whatever the failure: measured (test/e2e/cluster/restart.test.ts), after a 5 s outage the watches
 * of the reference operators then came back 3 to 6 s after the apiserver, and every reconcile of an
 * object created meanwhile waited for them. Retries of an apiserver that is away cost it nothing.
 */
const awayMaxDelayMs = 2_000;

/** The initial-state stream ended before the server said the state was complete. */
class IncompleteInitialState extends Error {}

/** Something arrived after a gap longer than `gapMs`; the stream is dropped unread from there. */
class StreamGap extends Error {}

/**
 * Watches a kind for as long as the signal allows, surviving expiry, disconnects and silence.
 * Yields `init`/`initApply`/`initDone` for every (re)list and `apply`/`delete` for changes.
 *
 * @example
 * ```ts
 * for await (const event of watch(client, ConfigMap, { namespace: "default", signal })) {
 *   if (event.type === "apply") console.log("changed", event.object.metadata.name);
 * }
 * ```
 */
export async function* watch<T extends KubeObject>(
  client: WatchClient,
  type: ResourceType<T>,
  options: WatcherOptions = {},
): AsyncGenerator<WatchEvent<T>> {
  const clock = options.clock ?? systemClock;
  const backoff = new Backoff(options.backoff?.initialMs, options.backoff?.maxMs, options.random);
  const metrics = options.metrics ?? {};
  const session = new Session(client, type, options, clock, metrics);
  let canStream = (options.initialState ?? "streaming") === "streaming";
  let listing = !canStream; // How the next initial state is fetched.
  let resourceVersion: string | undefined;
  let reason: RestartReason = "start";
  let expiries = 0;
  const advance = (rv: string) => {
    resourceVersion = rv;
    options.onProgress?.(rv);
    expiries = 0; // Progress since the last relist: a later expiry relists at once again.
    backoff.reset(); // The stream works: losing it later is a first failure, not one more in a row.
  };

  while (!options.signal?.aborted) {
    try {
      if (resourceVersion === undefined && listing) {
        metrics.relist?.(reason);
        resourceVersion = yield* session.list();
        options.onProgress?.(resourceVersion);
        reason = "start";
        listing = !canStream;
      } else {
        if (resourceVersion === undefined) metrics.relist?.(reason);
        else if (reason !== "start") metrics.reconnect?.(reason);
        yield* session.stream(resourceVersion, advance);
        reason = "closed";
      }
      backoff.reset();
      expiries = 0;
    } catch (err) {
      if (options.signal?.aborted) return;
      // Closed for good: reconnecting could only fail again, forever.
      if (err instanceof ClientClosedError) throw err;
      if (resourceVersion === undefined && !listing) {
        // As client-go does, any failure of the streaming attempt falls back to list-then-watch at
        // once: a proxy that drops sendInitialEvents or breaks the stream must not keep the cache
        // from syncing. The next relist streams again, unless the server refused sendInitialEvents
        // (400/422: it does not support it), which older servers do and is not worth reporting. A
        // kind the server does not serve is reported by the list, which fails alike right after:
        // one report per attempt.
        listing = true;
        if (err instanceof InvalidError) canStream = false;
        else if (!(err instanceof KindNotFoundError)) metrics.retry?.(err, 0);
        continue;
      }
      reason = classify(err);
      // Nothing failed: resume at once from before the gap. No hot loop: a new stream can only
      // gap once gapMs has passed.
      if (reason === "gap") continue;
      if (reason === "expired" || reason === "too-large-resource-version") {
        resourceVersion = undefined;
        if (expiries++ === 0) continue; // Relist at once; back off only if it keeps expiring.
      }
      // A watch that went silent had connected: no failure in a row, so no ever longer wait (an idle
      // kind without bookmarks would otherwise stay disconnected for up to the maximum backoff).
      if (reason === "inactive") backoff.reset();
      const delay = backoff.next(apiserverAway(err) ? awayMaxDelayMs : undefined);
      metrics.retry?.(err, delay);
      await clock.sleep(delay, options.signal).catch(() => {});
    }
  }
}

function classify(err: unknown): RestartReason {
  if (err instanceof ExpiredError) return "expired";
  if (err instanceof ServerTimeoutError && err.resourceVersionTooLarge) return "too-large-resource-version";
  if (err instanceof WatchInactiveError) return "inactive";
  if (err instanceof StreamGap) return "gap";
  if (err instanceof IncompleteInitialState || err instanceof WatchClosedEarlyError) return "closed";
  return "error";
}

/** One watcher's requests: list pages and watch streams. */
class Session<T extends KubeObject> {
  readonly #client: WatchClient;
  readonly #type: ResourceType<T>;
  readonly #options: WatcherOptions;
  readonly #clock: Clock;
  readonly #metrics: WatchMetrics;
  /** Tells the metrics each chunk's size; bound once, not per response. */
  readonly #bytes: ((count: number) => void) | undefined;
  readonly #shard: ShardFilter;
  /** The server has sent a bookmark: it sends them periodically, so a long silence is a gap. */
  #sendsBookmarks = false;

  constructor(
    client: WatchClient,
    type: ResourceType<T>,
    options: WatcherOptions,
    clock: Clock,
    metrics: WatchMetrics,
  ) {
    this.#client = client;
    this.#type = type;
    this.#options = options;
    this.#clock = clock;
    this.#metrics = metrics;
    this.#bytes = metrics.bytes && ((count) => metrics.bytes?.(count));
    this.#shard = shardFilter(options.shard, () => metrics.outsideShard?.());
  }

  /** A complete paged list; returns the list's resourceVersion. */
  async *list(): AsyncGenerator<WatchEvent<T>, string> {
    const { namespace, labelSelector, fieldSelector, metadataOnly, pageSize = 500, signal } = this.#options;
    yield { type: "init" };
    let page: ObjectList<T> | undefined;
    do {
      page = await this.#client.listPage(this.#type, {
        namespace,
        labelSelector,
        fieldSelector,
        metadataOnly,
        shardSelector: this.#shard.selector,
        limit: pageSize,
        continue: page?.continue,
        signal,
      });
      for (const object of page.items) if (this.#shard.keeps(object)) yield { type: "initApply", object };
    } while (page.continue);
    yield { type: "initDone" };
    return page.resourceVersion;
  }

  /**
   * Streams a watch from `resourceVersion`, or — without one — the current state first
   * (`sendInitialEvents`, bracketed by init … initDone). Reports every consistent resume point
   * through `advance`, and returns when the server closes the stream cleanly.
   */
  async *stream(
    resourceVersion: string | undefined,
    advance: (rv: string) => void,
  ): AsyncGenerator<WatchEvent<T>> {
    const res = await this.#open(resourceVersion);
    let synced = resourceVersion !== undefined;
    if (!synced) yield { type: "init" };
    let received = 0;
    for await (const raw of this.#lines(res)) {
      received++;
      this.#metrics.event?.(raw.type);
      yield* this.#translate(raw, !synced);
      if (
        !synced &&
        raw.type === "BOOKMARK" &&
        raw.object.metadata?.annotations?.[initialEventsEnd] === "true"
      ) {
        synced = true;
        yield { type: "initDone" };
      }
      const rv = raw.object.metadata?.resourceVersion;
      if (rv && synced) advance(rv);
    }
    if (!synced) throw new IncompleteInitialState("the initial-state stream ended early");
    if (received === 0) throw new WatchClosedEarlyError();
  }

  #open(resourceVersion: string | undefined): Promise<ApiResponse> {
    const { namespace, labelSelector, fieldSelector, metadataOnly, signal } = this.#options;
    const initial = resourceVersion === undefined;
    const random = this.#options.random ?? Math.random;
    return this.#client.watchStream(this.#type, {
      namespace,
      labelSelector,
      fieldSelector,
      metadataOnly,
      shardSelector: this.#shard.selector,
      resourceVersion: resourceVersion ?? "",
      resourceVersionMatch: initial ? "NotOlderThan" : undefined,
      sendInitialEvents: initial ? true : undefined,
      allowWatchBookmarks: true,
      timeoutSeconds: Math.round(this.#options.timeoutSeconds?.() ?? 300 + random() * 300),
      signal,
    });
  }

  *#translate(raw: RawWatchEvent, initializing: boolean): Generator<WatchEvent<T>> {
    if (raw.type === "ERROR") {
      throw apiErrorFrom(Number(raw.object.code) || 500, raw.object, {
        method: "WATCH",
        path: this.#type.plural,
      });
    }
    if (raw.type === "BOOKMARK") return;
    const object = this.#object(raw.object as unknown as T);
    if (!this.#shard.keeps(object)) return;
    if (raw.type === "DELETED") yield { type: "delete", object };
    else yield { type: initializing ? "initApply" : "apply", object };
  }

  /** Metadata-only objects arrive as PartialObjectMetadata; tag them with the watched kind. */
  #object(object: T): T {
    if (!this.#options.metadataOnly) return object;
    return { ...object, apiVersion: this.#type.apiVersion, kind: this.#type.kind };
  }

  /**
   * The stream's events (time spent by the consumer excluded from every wait): aborts the stream
   * when nothing arrives for `inactivityMs`, and throws {@link StreamGap} when something arrives
   * after more than `gapMs` of nothing from a server that sends bookmarks.
   */
  async *#lines(res: ApiResponse): AsyncGenerator<RawWatchEvent> {
    const { inactivityMs = defaultInactivityMs, gapMs = defaultGapMs } = this.#options;
    let waitingSince = 0;
    const arm = () => {
      waitingSince = this.#clock.monotonicMs();
      return this.#clock.setTimer(inactivityMs, () => res.body.destroy(new WatchInactiveError(inactivityMs)));
    };
    let timer = arm();
    try {
      for await (const raw of decodeLines(res.body, this.#bytes)) {
        timer.cancel();
        if (this.#sendsBookmarks && this.#clock.monotonicMs() - waitingSince > gapMs) throw new StreamGap();
        if (raw.type === "BOOKMARK") this.#sendsBookmarks = true;
        yield raw;
        timer = arm();
      }
    } finally {
      timer.cancel();
      res.body.destroy();
    }
  }
}
