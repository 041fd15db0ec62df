/**
 * The reconcile loop: sources feed keys into a work queue; `concurrency` workers take keys,
 * reconcile them (never the same key twice at once), and turn the outcome into the next step:
 * forget on success, requeue after a delay when asked, back off per key on errors, drop on
 * terminal errors. Failures are told on the object too (events; in its conditions an invalid
 * child's stall, and a key that keeps failing). A reconcile may have a timeout, and its client
 * writes nothing once its signal aborted. A periodic resync re-queues every primary object, so a
 * missed event is repaired anyway. Initial lists and resyncs are queued at low priority, behind
 * real changes (within the queue's starvation bound); requeues and retries keep the key's priority.
 *
 * One class of ~450 lines on purpose: the worker's steps share the queue, the options and the
 * metrics, and read best in order; the policies they apply live in `internal/` (failures told on
 * the object, retries, a reconcile's deadline, fair turns).
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { type KubeObject, parseKey, type ResourceType } from "../api/index.ts";
import { type Informer, type InformerCache, OwnWrites } from "../cache/index.ts";
import type { Client } from "../client/index.ts";
import { type Clock, systemClock, type Timer, untilAborted } from "../clock/index.ts";
import type { EventRecorder } from "../events/index.ts";
import {
  defaultControllerRateLimiter,
  LOW_PRIORITY,
  NORMAL_PRIORITY,
  type QueueItem,
  WorkQueue,
} from "../queue/index.ts";
import type { Action } from "./action.ts";
import type { OwnedKind } from "./declaration.ts";
import type { ReconcileTimeoutError } from "./errors.ts";
import { type ReconcileRun, Stopping } from "./internal/deadline.ts";
import { classifyFailure, FailureReports } from "./internal/failures.ts";
import { guardedRateLimiter, outageBackoff, serverUnavailable } from "./internal/retries.ts";
import { specCheckOf } from "./internal/spec-check.ts";
import { endReconcileSpan, startReconcileSpan } from "./internal/tracing.ts";
import { Turns } from "./internal/turns.ts";
import {
  type ControllerMetrics,
  type HandlingFailure,
  noopControllerMetrics,
  type ReconcileResult,
} from "./metrics.ts";
import type { ControllerOptions } from "./options.ts";
import { RECENT_RECONCILES, type ReconcileRecord, Ring } from "./recent.ts";
import type { ReconcileContext, ReconcileReporting, Reconciler, Request } from "./reconciler.ts";
import type { Source } from "./source.ts";

/** Whether a controller's workers are alive, for `/healthz`. */
export interface ControllerHealth {
  /** True from `run` until it returns. */
  readonly running: boolean;
  /** Workers whose loop died (a bug in a hook it calls); the controller reconciles with fewer, or none. */
  readonly deadWorkers: number;
  /** Why the last worker died. */
  readonly lastError: unknown;
}

/** What a controller runs with; the manager provides it. */
export interface ControllerDeps {
  client: Client;
  cache: InformerCache;
  logger: Logger;
  recorder: EventRecorder;
  metrics?: ControllerMetrics;
  clock?: Clock;
  /**
   * Whether a key, queued for `reason`, is this controller's to reconcile; keys it refuses are
   * dropped when queued. A sharded manager passes the check of its shard, for keys that watches of
   * unsharded kinds map to. Default: every key.
   */
  accepts?: (key: string, reason: string) => boolean;
  /** Labels `ensureChild` puts on every child (`ctx.childLabels`): a sharded manager routes children by them. */
  childLabels?: (owner: KubeObject) => Readonly<Record<string, string>>;
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
  readonly #owned: readonly OwnedKind[];
  /** Backoff of keys whose reconciles failed only because the apiserver was away. */
  readonly #outage = outageBackoff();
  readonly #failures: FailureReports<T>;
  /** The check of a spec's refinements before its reconcile, for a kind that has some. */
  readonly #specCheck: ReturnType<typeof specCheckOf>;
  readonly #recent = new Ring<ReconcileRecord>(RECENT_RECONCILES);
  /** The watermarks of each key's writes, when reads of them wait for them (`readYourOwnWrites`). */
  readonly #ownWrites: OwnWrites | undefined;
  #active = 0;
  #hardStop: AbortController | undefined;
  #running = false;
  #deadWorkers = 0;
  #lastWorkerError: unknown;

  constructor(
    name: string,
    primary: Informer<T>,
    sources: readonly Source[],
    reconciler: Reconciler<T>,
    deps: ControllerDeps,
    options: ControllerOptions = {},
    owned: readonly OwnedKind[] = [],
  ) {
    this.name = name;
    this.primary = primary.type;
    this.#primaryInformer = primary;
    this.#sources = sources;
    this.#reconciler = reconciler;
    this.#deps = deps;
    this.#options = options;
    this.#owned = owned;
    this.#metrics = deps.metrics ?? noopControllerMetrics;
    this.#report = reportingOf(this.#metrics);
    this.#clock = deps.clock ?? systemClock;
    const { client, recorder } = deps;
    const failureDeps = { client, recorder, clock: this.#clock, report: this.#report };
    this.#failures = new FailureReports(primary.type, failureDeps, options.showFailingAfter);
    this.#specCheck = specCheckOf(primary.type);
    this.#ownWrites =
      options.readYourOwnWrites === false ? undefined : new OwnWrites(deps.cache, { clock: this.#clock });
    const limiter = options.rateLimiter ?? defaultControllerRateLimiter(this.#clock);
    this.queue = new WorkQueue({
      clock: this.#clock,
      rateLimiter: guardedRateLimiter(limiter, (problem) => this.#handlingFailed("rateLimiter", problem)),
      metrics: this.#metrics.queue,
      starvationBoundMs: options.starvationBoundMs,
    });
  }

  /**
   * Queues a key for reconcile, with a reason that shows in logs and metrics, at `priority`
   * (default {@link NORMAL_PRIORITY}; always normal when the `priorityQueue` option is false).
   */
  enqueue(key: string, reason: string, priority = NORMAL_PRIORITY): void {
    if (this.#deps.accepts && !this.#deps.accepts(key, reason)) return;
    this.#metrics.triggered(reason);
    this.queue.add(key, reason, {
      priority: this.#options.priorityQueue === false ? NORMAL_PRIORITY : priority,
    });
  }

  /** Queues every primary object its informer holds, with `reason`, at low priority; returns how many. */
  enqueueAll(reason: string): number {
    const keys = [...this.#primaryInformer.store.keys()];
    for (const key of keys) this.enqueue(key, reason, LOW_PRIORITY);
    return keys.length;
  }

  /**
   * Runs until `signal` aborts (or {@link abort}), then stops taking work and lets in-flight
   * reconciles finish for up to `gracefulShutdownMs`; after that it aborts their `ctx.signal`,
   * fences their `ctx.client`, and returns without waiting for them.
   */
  async run(signal: AbortSignal): Promise<void> {
    const concurrency = this.#options.concurrency ?? 1;
    this.#metrics.maxConcurrent(concurrency);
    const hardStop = new AbortController();
    this.#hardStop = hardStop;
    this.#running = true;
    const stops = this.#sources.map((s) =>
      s.start((key, reason, priority) => this.enqueue(key, reason, priority)),
    );
    const resync = this.#scheduleResync();
    const stopping = new Stopping(hardStop.signal, this.#deps.client.fenced(hardStop.signal));
    const workers = Array.from({ length: concurrency }, () =>
      this.#work(stopping).catch((err: unknown) => this.#workerDied(err)),
    );
    await untilAborted(AbortSignal.any([signal, hardStop.signal]));
    for (const stop of stops) stop();
    resync.cancel();
    this.queue.shutDown();
    await this.#drain(Promise.all(workers), hardStop);
    this.#running = false;
  }

  /**
   * Stops at once, with no grace period: aborts every in-flight reconcile's `ctx.signal` with
   * `reason`, drops the queued keys, and lets {@link run} return without waiting for the
   * reconciles. The manager calls it when leadership is lost, as controller-runtime drops its
   * graceful shutdown timeout to zero then. Does nothing unless running.
   */
  abort(reason: unknown): void {
    this.#hardStop?.abort(reason);
  }

  /** The last reconciles (at most {@link RECENT_RECONCILES}), newest first: what the manager's live page lists. */
  recentReconciles(): ReconcileRecord[] {
    return this.#recent.newestFirst();
  }

  /** Whether its workers are alive. */
  health(): ControllerHealth {
    return { running: this.#running, deadWorkers: this.#deadWorkers, lastError: this.#lastWorkerError };
  }

  /** Waits for the workers for up to the grace period (none after {@link abort}); past it, aborts their reconciles and stops waiting. */
  async #drain(workers: Promise<unknown>, hardStop: AbortController): Promise<void> {
    const graceMs = this.#options.gracefulShutdownMs ?? 30_000;
    let grace: Timer | undefined;
    const expired = new Promise<"expired">((resolve) => {
      grace = this.#clock.setTimer(graceMs, () => resolve("expired"));
    });
    const aborted = untilAborted(hardStop.signal).then(() => "aborted" as const);
    const outcome = await Promise.race([workers, expired, aborted]);
    grace?.cancel();
    if (outcome === "aborted") {
      this.#say(() =>
        this.#deps.logger.warn(
          { controller: this.name, inFlight: this.#active, reason: String(hardStop.signal.reason) },
          "stopped at once: aborted the reconciles still running",
        ),
      );
    }
    if (outcome !== "expired") return;
    hardStop.abort(new Error("shutdown grace period over"));
    this.#say(() =>
      this.#deps.logger.warn(
        { controller: this.name, inFlight: this.#active, gracefulShutdownMs: graceMs },
        "shutdown grace period over: aborted the reconciles still running",
      ),
    );
  }

  #scheduleResync(): Timer {
    const period = this.#options.resyncPeriodMs ?? 10 * 3600_000;
    if (period <= 0) return { cancel() {} };
    let timer: Timer;
    const tick = () => {
      this.enqueueAll("resync");
      timer = this.#clock.setTimer(period * (0.9 + Math.random() * 0.2), tick);
    };
    timer = this.#clock.setTimer(period * (0.9 + Math.random() * 0.2), tick);
    return { cancel: () => timer.cancel() };
  }

  async #work(stopping: Stopping): Promise<void> {
    const turns = new Turns();
    for (let item = await this.queue.get(); item; item = await this.queue.get()) {
      this.#metrics.activeWorkers(++this.#active);
      try {
        await this.#process(item, stopping);
      } finally {
        this.#metrics.activeWorkers(--this.#active);
        this.queue.done(item.key);
      }
      if (turns.due()) await turns.yield();
    }
  }

  /** Reconciles one key and schedules what comes next; never throws. */
  async #process(item: QueueItem, stopping: Stopping): Promise<void> {
    const request: Request = { key: item.key, ...parseKey(item.key) };
    const reconcileID = randomUUID();
    // Most reconciles of a settled object log nothing: build the child logger only when used.
    let child: Logger | undefined;
    const log = () =>
      (child ??= this.#deps.logger.child({
        controller: this.name,
        namespace: request.namespace,
        object: request.name,
        reconcileID,
      }));
    const debug = this.#debugging();
    const triggers = item.reasons;
    if (debug) this.#say(() => log().debug({ triggers }, "reconciling"));
    await this.#readOwnWrites(item.key, stopping.signal);
    const started = this.#clock.now();
    const timeoutMs = this.#options.reconciliationTimeoutMs;
    const run = stopping.start(item.key, timeoutMs, this.#clock, (err) => this.#timedOut(log, err));
    const span = startReconcileSpan(this.name, item.key, reconcileID, triggers);
    const traced = span ? { ...run, client: run.client.traced(span) } : run;
    const ctx = this.#context(request, log, reconcileID, item, this.#recordingWrites(item.key, traced));
    const outcome = await this.#reconcile(ctx, run);
    const took = (this.#clock.now() - started) / 1000;
    try {
      if ("error" in outcome) {
        this.#recent.push({ item, seconds: took, result: "error", error: outcome.error });
        if (span) endReconcileSpan(span, "error", outcome.error);
        await this.#failed(ctx, outcome.error, took, item.priority, stopping.signal);
      } else {
        const result = resultOf(outcome.action);
        this.#recent.push({ item, seconds: took, result });
        if (span) endReconcileSpan(span, result);
        this.#succeeded(item, outcome.action, result, took);
      }
      const requeueAfterMs = "action" in outcome ? outcome.action?.requeueAfterMs : undefined;
      if (debug && "action" in outcome) {
        this.#say(() => log().debug({ triggers, requeueAfterMs, seconds: took }, "reconciled"));
      }
    } catch (err) {
      this.#handlingFailed("outcome", err);
      this.#retry(item.key, undefined, item.priority);
    }
  }

  /**
   * Waits (bounded) until the cache has seen the writes the last reconciles of `key` made, so that
   * this one reads them; counts each wait and how it ended.
   */
  async #readOwnWrites(key: string, signal: AbortSignal): Promise<void> {
    const waited = await this.#ownWrites?.caughtUp(key, signal);
    if (!waited) return;
    this.#metrics.ownWritesWaited(waited);
    if (waited === "timeout")
      this.#say(() =>
        this.#deps.logger.warn(
          { controller: this.name, key },
          "the cache did not show this key's own writes in time; reconciling anyway",
        ),
      );
  }

  /** `run` with a client whose writes are recorded for `key`'s next reconcile, when it reads its own writes. */
  #recordingWrites(key: string, run: ReconcileRun): ReconcileRun {
    const ownWrites = this.#ownWrites;
    if (!ownWrites) return run;
    return { ...run, client: run.client.written((type, write) => ownWrites.record(key, type, write)) };
  }

  /**
   * Runs the reconciler, unless the object fails its kind's refinements (a terminal failure); with
   * a timeout, stops waiting for it once `run.timedOut` rejects.
   */
  async #reconcile(ctx: ReconcileContext<T>, run: ReconcileRun): Promise<Outcome> {
    try {
      const invalid = this.#specCheck?.(ctx.request.key, ctx.object);
      if (invalid) return { error: invalid };
      const reconciled = this.#reconciler(ctx);
      const { timedOut } = run;
      return {
        action:
          (await (timedOut === undefined ? reconciled : Promise.race([reconciled, timedOut]))) ?? undefined,
      };
    } catch (error) {
      return { error };
    } finally {
      run.end();
    }
  }

  #context(
    request: Request,
    log: () => Logger,
    reconcileID: string,
    item: QueueItem,
    { client, signal }: ReconcileRun,
  ): ReconcileContext<T> {
    return {
      request,
      object: this.#primaryInformer.store.get(request.key),
      client,
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
      owned: this.#owned,
      childLabels: this.#deps.childLabels,
      signal,
    };
  }

  #succeeded(
    { key, priority }: QueueItem,
    action: Action | undefined,
    result: ReconcileResult,
    seconds: number,
  ): void {
    this.#failures.ended(key);
    this.#metrics.reconciled(result, seconds);
    if (action?.rateLimited) {
      this.#metrics.triggered("requeue");
      this.queue.addRateLimited(key, "requeue", { priority });
      return;
    }
    this.#forget(key);
    const after = action?.requeueAfterMs;
    if (after !== undefined) this.#requeue(key, after, priority);
  }

  /**
   * Logs and reports a failed reconcile (a status write there that fails backs the key off by
   * default), then drops a terminal failure's key, or schedules the retry at `priority`.
   */
  async #failed(
    ctx: ReconcileContext<T>,
    err: unknown,
    seconds: number,
    priority: number,
    stop: AbortSignal,
  ): Promise<void> {
    const { request } = ctx;
    const failure = classifyFailure(err);
    const { terminal, routine } = failure;
    this.#metrics.failed(terminal);
    this.#metrics.reconciled("error", seconds);
    const next = terminal ? undefined : this.#policy(err, request);
    const retries = this.queue.retries(request.key);
    this.#say(() =>
      terminal
        ? ctx.log.error({ err }, "reconcile failed permanently; not retrying until the object changes")
        : routine
          ? ctx.log.info(
              { err, retries },
              "reconcile failed (routine: a conflict, the apiserver away or the namespace being deleted); retrying",
            )
          : ctx.log.error({ err, retries }, "reconcile failed; retrying"),
    );
    await this.#failures.failed(request.key, ctx.object, failure, stop);
    if (terminal) this.#forget(request.key);
    else if (next?.requeueAfterMs !== undefined) this.#requeue(request.key, next.requeueAfterMs, priority);
    else this.#retry(request.key, err, priority);
  }

  /** The errorPolicy's answer; undefined (the default backoff) when there is none or it throws. */
  #policy(err: unknown, request: Request): Action | undefined {
    try {
      return this.#options.errorPolicy?.(err, request);
    } catch (policyError) {
      this.#handlingFailed("errorPolicy", policyError);
      return undefined;
    }
  }

  /**
   * Queues `key` again at `priority` after its backoff: the short one when `err` says only that
   * the apiserver was away.
   */
  #retry(key: string, err: unknown, priority: number): void {
    this.#metrics.triggered("retry");
    if (serverUnavailable(err)) this.queue.addAfter(key, this.#outage.when(key), "retry", { priority });
    else this.queue.addRateLimited(key, "retry", { priority });
  }

  #forget(key: string): void {
    this.queue.forget(key);
    this.#outage.forget(key);
    this.#failures.ended(key);
  }

  #requeue(key: string, afterMs: number, priority: number): void {
    this.#metrics.triggered("requeue-after");
    this.queue.addAfter(key, afterMs, "requeue-after", { priority });
  }

  /** A reconcile ran past its timeout: counted and logged (its failure is reported as any other). */
  #timedOut(log: () => Logger, err: ReconcileTimeoutError): void {
    this.#metrics.timedOut();
    this.#say(() => log().warn({ timeoutMs: err.timeoutMs }, "reconcile timed out: stopped waiting for it"));
  }

  /** Something the worker ran besides the reconcile threw: counted and logged; the worker goes on. */
  #handlingFailed(source: HandlingFailure, err: unknown): void {
    this.#metrics.handlingFailed(source);
    this.#say(() =>
      this.#deps.logger.error(
        { err, controller: this.name, source },
        `handling a reconcile's outcome failed in the ${source}; the key backs off by default`,
      ),
    );
  }

  #workerDied(err: unknown): void {
    this.#deadWorkers++;
    this.#lastWorkerError = err;
    this.#metrics.handlingFailed("worker");
    this.#say(() =>
      this.#deps.logger.error(
        { err, controller: this.name },
        "a worker died; /healthz fails so that the process is restarted",
      ),
    );
  }

  /** True when the logger writes debug lines (then a reconcile logs its start and end). */
  #debugging(): boolean {
    try {
      return this.#deps.logger.isLevelEnabled("debug");
    } catch {
      this.#metrics.handlingFailed("logger");
      return false;
    }
  }

  /** Logs through `write`; a logger that throws (a hook) is counted, and nothing else happens. */
  #say(write: () => void): void {
    try {
      write();
    } catch {
      // Where the logger itself fails, the count is what is left to tell.
      this.#metrics.handlingFailed("logger");
    }
  }
}

/** What a reconcile came to: an action (maybe none), or an error. */
type Outcome = { action: Action | undefined } | { error: unknown };

/** The outcome a reconcile that returned `action` counts as. */
function resultOf(action: Action | undefined): ReconcileResult {
  if (action?.rateLimited) return "requeue";
  return action?.requeueAfterMs === undefined ? "success" : "requeue_after";
}

/** The part of `metrics` a reconciler may call, and nothing else of it. */
function reportingOf(metrics: ControllerMetrics): ReconcileReporting {
  return Object.freeze({
    driftRepaired: (kind: string, manager: string) => metrics.driftRepaired(kind, manager),
    conditionTransitioned: (kind: string, condition: string, status: string) =>
      metrics.conditionTransitioned(kind, condition, status),
  });
}
