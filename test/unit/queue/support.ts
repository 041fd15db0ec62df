import type { QueueMetrics } from "../../../src/queue/index.ts";

/** Lets every pending promise callback run (one macrotask turn; no time passes on any clock). */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Whether `promise` has settled, after letting pending callbacks run. */
export async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  await flush();
  return settled;
}

/** Metrics hooks that record every call as `[hook, value?]`. */
export function recordingMetrics(): { metrics: QueueMetrics; calls: [string, number?][] } {
  const calls: [string, number?][] = [];
  const metrics: QueueMetrics = {
    depth: (keys) => calls.push(["depth", keys]),
    added: () => calls.push(["added"]),
    queueDuration: (seconds) => calls.push(["queueDuration", seconds]),
    workDuration: (seconds) => calls.push(["workDuration", seconds]),
    retried: () => calls.push(["retried"]),
  };
  return { metrics, calls };
}
