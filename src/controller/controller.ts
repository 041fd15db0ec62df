/**
 * The reconcile loop: sources feed keys into a work queue; `concurrency` workers take keys,
 * reconcile them (never the same key twice at once), and turn the outcome into the next step:
 * forget on success, requeue after a delay when asked, back off per key on errors, drop on
 * terminal errors. A periodic resync re-queues every primary object, so a missed event is
 * repaired anyway.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { type KubeObject, parseKey, type ResourceType } from "../api/index.ts";
import type { Informer, InformerCache } from "../cache/index.ts";
import type { Client } from "../client/index.ts";
import { type Clock, systemClock, type Timer } from "../clock/index.ts";
import type { EventRecorder } from "../events/index.ts";
import { type QueueItem, type RateLimiter, WorkQueue } from "../queue/index.ts";
import { type Action, TerminalError } from "./action.ts";
import { type ControllerMetrics, noopControllerMetrics } from "./metrics.ts";
import type { ReconcileContext, ReconcileReporting, Reconciler, Request } from "./reconciler.ts";
import type { Source } from "./source.ts";

/** Tuning of a controller. */
export interface ControllerOptions {
  /** Reconciles running at once (different keys). Default 1. */
  concurrency?: number;
  /** Every primary object is re-queued this often, with ±10 % jitter. Default 10 h. `0` disables. */
  resyncPeriodMs?: number;
  /** Per-key failure backoff. Default: 5 ms doubling to 1000 s, with an overall 10 qps / 100 burst bucket. */
  rateLimiter?: RateLimiter;
  /**
   * How long in-flight reconciles may run after shutdown begins; then their `ctx.signal` aborts
   * and the controller stops without waiting for them. Default: the manager's, else 30 s.
   */
  gracefulShutdownMs?: number;
  /**
   * Maps a reconcile error to the next step: an {@link Action} to requeue at a chosen time, or
   * `undefined` for the default per-key backoff.
   */
  errorPolicy?: (error: unknown, request: Request) => Action | undefined;
}

/** What a controller runs with; the manager provides it. */
export interface ControllerDeps {
  client: Client;
  cache: InformerCache;
  logger: Logger;
  recorder: EventRecorder;
  metrics?: ControllerMetrics;
  clock?: Clock;
}

/** A running reconcile loop for one primary kind. */
export class Controller<T extends KubeObject> {
  /** Unique name, used in logs, metrics and events. */
  readonly name: string;
  /** The kind this controller reconciles. */
  readonly primary: ResourceType<T>;
  /** Its work queue (exposed for tests and manual triggers). */
  readonly queue: WorkQueue;
  readonly #sources: readonly Source[];
  readonly #reconciler: Reconciler<T>;
  readonly #options: ControllerOptions;
  readonly #primaryInformer: Informer<T>;
  readonly #deps: ControllerDeps;
  readonly #metrics: ControllerMetrics;
  readonly #report: ReconcileReporting;
  readonly #clock: Clock;
  #active = 0;

  constructor(
    name: string,
    primary: Informer<T>,
    sources: readonly Source[],
    reconciler: Reconciler<T>,
    deps: ControllerDeps,
    options: ControllerOptions = {},
  ) {
    this.name = name;
    this.primary = primary.type;
    this.#primaryInformer = primary;
    this.#sources = sources;
    this.#reconciler = reconciler;
    this.#deps = deps;
    this.#options = options;
    this.#metrics = deps.metrics ?? noopControllerMetrics;
    this.#report = reportingOf(this.#metrics);
    this.#clock = deps.clock ?? systemClock;
    this.queue = new WorkQueue({
      clock: this.#clock,
      rateLimiter: options.rateLimiter,
      metrics: this.#metrics.queue,
    });
  }

  /** Queues a key for reconcile, with a reason that shows in logs and metrics. */
  enqueue(key: string, reason: string): void {
    this.#metrics.triggered(reason);
    this.queue.add(key, reason);
  }

  /**
   * Runs until `signal` aborts, then stops taking work and lets in-flight reconciles finish for
   * up to `gracefulShutdownMs`; after that it aborts their `ctx.signal` and returns without
   * waiting for them.
   */
  async run(signal: AbortSignal): Promise<void> {
    const concurrency = this.#options.concurrency ?? 1;
    this.#metrics.maxConcurrent(concurrency);
    const hardStop = new AbortController();
    const stops = this.#sources.map((s) => s.start((key, reason) => this.enqueue(key, reason)));
    const resync = this.#scheduleResync();
    const workers = Array.from({ length: concurrency }, () => this.#work(hardStop.signal));
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener("abort", () => resolve(), { once: true });
    });
    for (const stop of stops) stop();
    resync.cancel();
    this.queue.shutDown();
    await this.#drain(Promise.all(workers), hardStop);
  }

  /** Waits for the workers for up to the grace period; past it, aborts their reconciles and stops waiting. */
  async #drain(workers: Promise<unknown>, hardStop: AbortController): Promise<void> {
    const graceMs = this.#options.gracefulShutdownMs ?? 30_000;
    let grace: Timer | undefined;
    const expired = new Promise<"expired">((resolve) => {
      grace = this.#clock.setTimer(graceMs, () => resolve("expired"));
    });
    const outcome = await Promise.race([workers, expired]);
    grace?.cancel();
    if (outcome !== "expired") return;
    hardStop.abort(new Error("shutdown grace period over"));
    this.#deps.logger.warn(
      { controller: this.name, inFlight: this.#active, gracefulShutdownMs: graceMs },
      "shutdown grace period over: aborted the reconciles still running",
    );
  }

  #scheduleResync(): Timer {
    const period = this.#options.resyncPeriodMs ?? 10 * 3600_000;
    if (period <= 0) return { cancel() {} };
    let timer: Timer;
    const tick = () => {
      for (const key of this.#primaryInformer.store.keys()) this.enqueue(key, "resync");
      timer = this.#clock.setTimer(period * (0.9 + Math.random() * 0.2), tick);
    };
    timer = this.#clock.setTimer(period * (0.9 + Math.random() * 0.2), tick);
    return { cancel: () => timer.cancel() };
  }

  async #work(signal: AbortSignal): Promise<void> {
    for (let item = await this.queue.get(); item; item = await this.queue.get()) {
      this.#metrics.activeWorkers(++this.#active);
      try {
        await this.#process(item, signal);
      } finally {
        this.#metrics.activeWorkers(--this.#active);
        this.queue.done(item.key);
      }
    }
  }

  async #process(item: QueueItem, signal: AbortSignal): Promise<void> {
    const request: Request = { key: item.key, ...parseKey(item.key) };
    const reconcileID = randomUUID();
    // Most reconciles of a settled object log nothing: build the child logger only when used.
    let child: Logger | undefined;
    const log = () =>
      (child ??= this.#deps.logger.child({
        controller: this.name,
        namespace: request.namespace,
        name: request.name,
        reconcileID,
      }));
    const debug = this.#deps.logger.isLevelEnabled("debug");
    const triggers = item.reasons;
    if (debug) log().debug({ triggers }, "reconciling");
    const started = this.#clock.now();
    const seconds = () => (this.#clock.now() - started) / 1000;
    try {
      const ctx = this.#context(request, log, reconcileID, item, signal);
      const action = (await this.#reconciler(ctx)) ?? undefined;
      this.#succeeded(item.key, action, seconds());
      if (debug)
        log().debug({ triggers, requeueAfterMs: action?.requeueAfterMs, seconds: seconds() }, "reconciled");
    } catch (err) {
      this.#failed(request, err, seconds(), log());
    }
  }

  #context(
    request: Request,
    log: () => Logger,
    reconcileID: string,
    item: QueueItem,
    signal: AbortSignal,
  ): ReconcileContext<T> {
    return {
      request,
      object: this.#primaryInformer.store.get(request.key),
      client: this.#deps.client,
      cache: this.#deps.cache,
      get log() {
        return log();
      },
      recorder: this.#deps.recorder,
      triggers: item.reasons,
      reconcileID,
      controller: this.name,
      clock: this.#clock,
      report: this.#report,
      signal,
    };
  }

  #succeeded(key: string, action: Action | undefined, seconds: number): void {
    this.queue.forget(key);
    const after = action?.requeueAfterMs;
    if (after === undefined) {
      this.#metrics.reconciled("success", seconds);
      return;
    }
    this.#metrics.reconciled(after === 0 ? "requeue" : "requeue_after", seconds);
    this.#requeue(key, after);
  }

  #failed(request: Request, err: unknown, seconds: number, log: Logger): void {
    const terminal = err instanceof TerminalError;
    this.#metrics.failed(terminal);
    this.#metrics.reconciled("error", seconds);
    if (terminal) {
      log.error({ err }, "reconcile failed permanently; not retrying until the object changes");
      this.queue.forget(request.key);
      return;
    }
    const next = this.#options.errorPolicy?.(err, request);
    log.error({ err, retries: this.queue.retries(request.key) }, "reconcile failed; retrying");
    if (next?.requeueAfterMs !== undefined) this.#requeue(request.key, next.requeueAfterMs);
    else {
      this.#metrics.triggered("retry");
      this.queue.addRateLimited(request.key, "retry");
    }
  }

  #requeue(key: string, afterMs: number): void {
    this.#metrics.triggered("requeue-after");
    this.queue.addAfter(key, afterMs, "requeue-after");
  }
}

/** The part of `metrics` a reconciler may call, and nothing else of it. */
function reportingOf(metrics: ControllerMetrics): ReconcileReporting {
  return Object.freeze({
    driftRepaired: (kind: string, manager: string) => metrics.driftRepaired(kind, manager),
    conditionTransitioned: (kind: string, condition: string, status: string) =>
      metrics.conditionTransitioned(kind, condition, status),
  });
}
