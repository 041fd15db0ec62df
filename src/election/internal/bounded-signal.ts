import type { Clock } from "../../clock/index.ts";

/** An abort signal tied to a parent and a deadline; call `dispose` when done with it. */
export interface BoundedSignal {
  readonly signal: AbortSignal;
  /** Detaches from the parent and cancels the deadline. */
  dispose(): void;
}

/**
 * A signal that aborts when `parent` does (with its reason) or after `timeoutMs` on `clock`,
 * whichever comes first. Unlike `AbortSignal.any`, it leaves nothing attached to a long-lived
 * parent once disposed.
 */
export function boundedSignal(
  parent: AbortSignal | undefined,
  clock: Clock,
  timeoutMs: number,
): BoundedSignal {
  const controller = new AbortController();
  const onAbort = () => controller.abort(parent?.reason);
  const timer = clock.setTimer(timeoutMs, () =>
    controller.abort(
      new DOMException(`leader-election request timed out after ${timeoutMs} ms`, "TimeoutError"),
    ),
  );
  if (parent?.aborted) onAbort();
  else parent?.addEventListener("abort", onAbort, { once: true });
  return {
    signal: controller.signal,
    dispose() {
      timer.cancel();
      parent?.removeEventListener("abort", onAbort);
    },
  };
}
