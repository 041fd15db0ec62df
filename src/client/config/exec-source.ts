import type { Clock } from "../../clock/index.ts";
import type { AuthParts, AuthSource } from "./credentials.ts";
import { type ExecOutput, type ExecPlugin, runExecPlugin } from "./exec.ts";

/** How long before `expirationTimestamp` a cached exec credential is refreshed. */
export const EXEC_REFRESH_MARGIN_MS = 30_000;

/** Default limit on one plugin run. */
export const DEFAULT_EXEC_TIMEOUT_MS = 60_000;

/**
 * Credentials from an exec plugin, cached until shortly before they expire (or until
 * `invalidate()` when they carry no expiry). Concurrent callers share one plugin run.
 */
export function execSource(plugin: ExecPlugin, options: { clock: Clock; timeoutMs: number }): AuthSource {
  let cached: { parts: AuthParts; refreshAt: number } | undefined;
  let running: Promise<AuthParts> | undefined;

  const run = async (): Promise<AuthParts> => {
    const output = await runExecPlugin(plugin, options);
    cached = { parts: output.parts, refreshAt: refreshTime(output, options.clock.now()) };
    return output.parts;
  };

  return {
    get(signal) {
      if (cached && options.clock.now() < cached.refreshAt) return Promise.resolve(cached.parts);
      running ??= run().finally(() => {
        running = undefined;
      });
      return abortable(running, signal);
    },
    invalidate() {
      cached = undefined;
    },
  };
}

/** When to run the plugin again: a margin before expiry, but no sooner than half the lifetime. */
function refreshTime(output: ExecOutput, now: number): number {
  if (output.expiresAt === undefined) return Number.POSITIVE_INFINITY;
  const lifetime = Math.max(0, output.expiresAt - now);
  return output.expiresAt - Math.min(EXEC_REFRESH_MARGIN_MS, lifetime / 2);
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
