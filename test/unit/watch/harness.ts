/** Starts a watcher of ConfigMaps on a FakeClock against a {@link FakeWatchClient}. */
import type { TestContext } from "node:test";
import { ConfigMap } from "../../../src/api/index.ts";
import { apiErrorFrom } from "../../../src/client/index.ts";
import { FakeClock } from "../../../src/clock/index.ts";
import { type WatcherOptions, watch } from "../../../src/watch/index.ts";
import { brief, FakeWatchClient, recordingWatchMetrics } from "./support.ts";

/**
 * A watcher with `random = 0`, so the first retry waits exactly 500 ms (half of the 1 s initial
 * step), then 1 s, 2 s, ... up to 4 s.
 */
export function startWatch(t: TestContext, options: WatcherOptions = {}) {
  const client = new FakeWatchClient();
  const clock = new FakeClock(1_000_000);
  const stop = new AbortController();
  const recorded = recordingWatchMetrics();
  const events = watch(client, ConfigMap, {
    clock,
    signal: stop.signal,
    metrics: recorded.metrics,
    random: () => 0,
    backoff: { initialMs: 1_000, maxMs: 8_000 },
    ...options,
  });
  t.after(() => stop.abort());
  /** The next `n` events, in brief form. */
  const take = async (n = 1): Promise<string[]> => {
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      const result = await events.next();
      if (result.done) throw new Error(`the watch ended after ${out.join(", ")}`);
      out.push(brief(result.value));
    }
    return out;
  };
  return { client, clock, stop, events, take, ...recorded };
}

/** The ERROR event the apiserver sends when a watch's resourceVersion is too old. */
export const expiredEvent = {
  kind: "Status",
  apiVersion: "v1",
  code: 410,
  reason: "Expired",
  message: "too old",
};

/** An error as the client throws it for an answer with this status. */
export function failure(code: number, reason: string, extra: Record<string, unknown> = {}): Error {
  return apiErrorFrom(code, { code, reason, message: reason, ...extra }, { method: "GET", path: "/watch" });
}
