/**
 * Ctrl-C, bounded: the first SIGTERM or SIGINT asks for a graceful shutdown, a second one ends
 * the process at once, for a shutdown that takes too long (a reconcile that ignores its signal).
 *
 * One Ctrl-C can arrive twice: the terminal sends it to the whole foreground process group, and a
 * parent such as `npm start` forwards what it got. Signals within {@link SAME_PRESS_MS} of the
 * first count as that first one.
 */
import type { Logger } from "pino";
import { type Clock, systemClock } from "../clock/index.ts";

const shutdownSignals = ["SIGTERM", "SIGINT"] as const;

/** How long after the first signal another one is taken for the same key press. */
export const SAME_PRESS_MS = 500;

/** Options of {@link handleShutdownSignals}; tests replace them. */
export interface ShutdownSignalOptions {
  /** Default {@link systemClock}. */
  clock?: Clock;
  /** Ends the process. Default `process.exit`. */
  exit?: (code: number) => void;
}

/**
 * Until the returned function is called, the first SIGTERM or SIGINT aborts `shutdown` (and says
 * so, telling how to force it), and a second one exits the process with code 130 (as a shell
 * reports Ctrl-C).
 */
export function handleShutdownSignals(
  logger: Logger,
  shutdown: AbortController,
  { clock = systemClock, exit = (code) => process.exit(code) }: ShutdownSignalOptions = {},
): () => void {
  let firstAt: number | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    const now = clock.monotonicMs();
    if (firstAt === undefined) {
      firstAt = now;
      logger.info({ signal }, "shutting down (press Ctrl-C again to force)");
      shutdown.abort();
    } else if (now - firstAt >= SAME_PRESS_MS) {
      logger.warn({ signal }, "forced exit");
      exit(130);
    }
  };
  for (const signal of shutdownSignals) process.on(signal, onSignal);
  return () => {
    for (const signal of shutdownSignals) process.off(signal, onSignal);
  };
}
