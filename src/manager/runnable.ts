/**
 * Work a manager runs besides its controllers — a periodic report, a garbage collector of
 * something outside the cluster, a cache warmer — as controller-runtime's `manager.Add(Runnable)`:
 * on every replica, or only on the one elected to lead (the leader; with sharding, the holder of
 * shard 0). A run that throws is started again after a backoff, so a failure neither ends the
 * process nor stops the work silently.
 */
import type { Logger } from "pino";
import type { Client } from "../client/index.ts";
import { type Clock, untilAborted } from "../clock/index.ts";
import { Backoff } from "../watch/index.ts";

/** What a {@link Runnable} is given for one run. */
export interface RunnableContext {
  /** Aborts when the run must stop: shutdown, or this replica no longer leads. */
  readonly signal: AbortSignal;
  /**
   * The manager's client; for a leader-only runnable, fenced when leadership (or shard 0) is lost
   * or given up, so nothing it writes afterwards is sent.
   */
  readonly client: Client;
  /** The manager's logger, with `runnable` set. */
  readonly logger: Logger;
}

/** Work a manager runs besides its controllers ({@link Manager.add}). */
export interface Runnable {
  /** Names it in logs and metrics (`runnable` label); unique within a manager. */
  readonly name: string;
  /**
   * Whether it runs on one replica of the operator only, while that replica leads: with leader
   * election the leader, with sharding the holder of shard 0, otherwise the one process. Default
   * true, as controller-runtime treats a Runnable that does not say. `false` runs it on every
   * replica from the moment the caches synced.
   */
  readonly leaderOnly?: boolean;
  /**
   * Does the work until `ctx.signal` aborts; the manager waits for it to return (up to the
   * shutdown grace) before it stops or gives up the leadership. Returning early ends the work;
   * throwing starts it again after a backoff.
   */
  start(ctx: RunnableContext): void | Promise<void>;
}

/** How runs of runnables are reported. */
export interface RunnableMetrics {
  running(name: string, running: boolean): void;
  failed(name: string): void;
}

/** A run that lasted this long before it threw starts again without delay the next time. */
const healthyRunMs = 60_000;

/**
 * Runs `runnable` until `ctx.signal` aborts or a run returns: a run that throws is logged, counted,
 * and started again after an exponential backoff (1 s doubling to 5 min, back to 1 s after a run
 * that lasted a minute).
 */
export async function keepRunning(
  runnable: Runnable,
  ctx: RunnableContext,
  deps: { clock: Clock; metrics: RunnableMetrics },
): Promise<void> {
  const { signal, logger } = ctx;
  const backoff = new Backoff(1_000, 300_000);
  while (!signal.aborted) {
    const startedAt = deps.clock.monotonicMs();
    deps.metrics.running(runnable.name, true);
    try {
      await runnable.start(ctx);
      if (!signal.aborted) logger.info("runnable finished");
      return;
    } catch (err) {
      if (signal.aborted) return;
      deps.metrics.failed(runnable.name);
      if (deps.clock.monotonicMs() - startedAt >= healthyRunMs) backoff.reset();
      const delayMs = backoff.next();
      logger.error(
        { err, retryInMs: Math.round(delayMs) },
        "runnable failed; starting it again after a backoff",
      );
      await deps.clock.sleep(delayMs, signal).catch(() => {});
    } finally {
      deps.metrics.running(runnable.name, false);
    }
  }
}

/**
 * Resolves when `work` settles, or `graceMs` after `signal` aborted if it has not by then (a run
 * that ignores its signal), calling `onAbandoned`: what it writes afterwards is the caller's to
 * fence.
 */
export async function drained(
  work: Promise<unknown>,
  signal: AbortSignal,
  graceMs: number,
  clock: Clock,
  onAbandoned: () => void,
): Promise<void> {
  const settled = new AbortController();
  const graceOver = async () => {
    await untilAborted(AbortSignal.any([signal, settled.signal]));
    await clock.sleep(graceMs, settled.signal);
    return false;
  };
  const finished = await Promise.race([
    work.then(
      () => true,
      () => true,
    ),
    graceOver().catch(() => true),
  ]);
  settled.abort();
  if (!finished) onAbandoned();
}
