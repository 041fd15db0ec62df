/**
 * Waiting in tests by polling with a deadline, never by fixed sleeps: {@link eventually} calls a
 * check until it holds, and fails with the last thing the check said.
 */

/** Options of {@link eventually}. */
export interface EventuallyOptions {
  /** How long to keep trying. Default 30 s. */
  timeoutMs?: number;
  /** Pause between tries. Default 250 ms. */
  intervalMs?: number;
  /** What is awaited, for the timeout's message, e.g. `"the ConfigMap to come back"`. */
  what?: string;
  /** Stops waiting early; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * Calls `check` until it returns a value other than `undefined` or `false` without throwing, and
 * resolves with that value. Rejects after `timeoutMs` with what it waited for and the check's
 * last error.
 *
 * @example
 * ```ts
 * const data = await eventually(async () => (await client.get(ConfigMap, "hello", { namespace })).data, {
 *   what: "the ConfigMap hello",
 * });
 * ```
 */
export async function eventually<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  options: EventuallyOptions = {},
): Promise<T> {
  const { timeoutMs = 30_000, intervalMs = 250, what = "the condition", signal } = options;
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    signal?.throwIfAborted();
    let lastError: unknown;
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      lastError = err;
    }
    if (performance.now() >= deadline) {
      const detail = lastError instanceof Error ? `; the last try threw: ${lastError.message}` : "";
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail}`, { cause: lastError });
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * {@link eventually} while `running` (a manager's `start`) goes on: rejects at once with
 * `stoppedMessage` when it ends first, e.g. an operator that stopped while starting.
 *
 * @example
 * ```ts
 * await eventuallyWhile(manager.start(signal), "the operator stopped while starting", () => manager.ready);
 * ```
 */
export async function eventuallyWhile<T>(
  running: Promise<unknown>,
  stoppedMessage: string,
  check: (signal: AbortSignal) => Promise<T | undefined | false> | T | undefined | false,
  options: Omit<EventuallyOptions, "signal"> = {},
): Promise<T> {
  const polling = new AbortController();
  const stopped = running.then(() => Promise.reject(new Error(stoppedMessage)));
  try {
    return await Promise.race([
      stopped,
      eventually(() => check(polling.signal), { ...options, signal: polling.signal }),
    ]);
  } finally {
    polling.abort();
  }
}
