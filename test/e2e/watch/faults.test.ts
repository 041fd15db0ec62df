/**
 * `watch()` under the faults a real apiserver or network inflicts, injected by the proxy: a
 * server that ends every stream at once, a stream that goes silent while the connection stays
 * open, and an apiserver that answers 500. The watcher must back off instead of hot-looping,
 * notice silence by itself, and resume from where it was without losing a change.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { eventually, testNamespace } from "../support.ts";
import {
  appliedSteps,
  arrives,
  assertResumesFrom,
  configMapRequests,
  proxiedClient,
  recordWatch,
  setStep,
} from "./support.ts";

const watchOf = (ns: string) => ({ verb: "watch", resource: "configmaps", namespace: ns }) as const;

/** A sampling window: only the count of requests made during it is asserted, never its length. */
const windowMs = 6000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test("a server that ends every watch at once is reconnected with backoff, not in a hot loop", async (t) => {
  const ns = await testNamespace(t);
  await setStep(ns, "a", "1");
  const { proxy, client } = await proxiedClient(t);
  const recording = await recordWatch(t, client, ns);
  const lastSeen = await setStep(ns, "a", "2");
  await arrives(recording, "a", "2");

  const ending = proxy.inject(watchOf(ns), { endStream: true });
  const before = configMapRequests(proxy, ns, "watch").length;
  await sleep(windowMs);
  const during = configMapRequests(proxy, ns, "watch").slice(before);
  // Backoff from 800 ms with jitter allows at most 5 reconnects in 6 s; a hot loop makes hundreds.
  assert.ok(during.length >= 2, `the watcher kept reconnecting (${during.length} requests)`);
  assert.ok(during.length <= 6, `${during.length} watch requests in ${windowMs} ms`);
  assert.ok(during.every((request) => request.status === 200));
  assertResumesFrom(during, lastSeen, recording.bookmarks);
  const gaps = during.slice(1).map((r, i) => r.startedAt - (during[i]?.startedAt ?? 0));
  assert.ok(
    gaps.every((gap) => gap >= 300),
    `reconnects are spaced by the backoff: ${gaps.join(", ")} ms`,
  );
  assert.deepEqual(configMapRequests(proxy, ns, "list"), []);
  assert.ok(recording.reconnects.length >= during.length - 1);
  assert.ok(recording.reconnects.every((reason) => reason === "closed"));

  ending.remove();
  await setStep(ns, "a", "3");
  await arrives(recording, "a", "3");
  assert.deepEqual(appliedSteps(recording, "a"), ["2", "3"]);
  assert.deepEqual(recording.relists, ["start"]);
});

test("a watch dropped after delivering events reconnects after the initial delay every time, not a growing one", async (t) => {
  const ns = await testNamespace(t);
  await setStep(ns, "a", "0");
  const { proxy, client } = await proxiedClient(t);
  const recording = await recordWatch(t, client, ns);
  // As client-go's reflector and the conventions (§5.5) do: a connection lost after a healthy
  // stream is a reconnect like after a clean close, not one more failure in a row.
  for (let step = 1; step <= 5; step++) {
    await setStep(ns, "a", String(step));
    await arrives(recording, "a", String(step));
    const seen = configMapRequests(proxy, ns, "watch").length;
    assert.equal(proxy.killWatches(), 1);
    await eventually(() => configMapRequests(proxy, ns, "watch")[seen], { what: `reconnect ${step}` });
  }
  t.diagnostic(`retry delays: ${recording.retryDelays.map(Math.round).join(", ")} ms`);
  assert.equal(recording.retryDelays.length, 5);
  assert.ok(
    recording.retryDelays.every((delay) => delay <= 800),
    `each reconnect waits the initial 400–800 ms: ${recording.retryDelays.map(Math.round).join(", ")}`,
  );
  assert.deepEqual(recording.relists, ["start"]);
});

test("a silenced watch is detected by inactivity, reconnected, and delivers what it missed and what follows", async (t) => {
  const ns = await testNamespace(t);
  await setStep(ns, "a", "1");
  const { proxy, client } = await proxiedClient(t);
  const recording = await recordWatch(t, client, ns, {
    inactivityMs: 2000,
    backoff: { initialMs: 200, maxMs: 1000 },
  });
  const lastSeen = await setStep(ns, "a", "2");
  await arrives(recording, "a", "2");

  // Silence the stream that looks at the rules next; the connection stays open, nothing flows.
  const silence = proxy.inject({ ...watchOf(ns), times: 1 }, { silence: true });
  const missed = await setStep(ns, "a", "3");
  const silenced = await eventually(
    () => configMapRequests(proxy, ns, "watch").find((r) => (r.events?.silenced ?? 0) > 0),
    { what: "the proxy to swallow a's change" },
  );
  assert.equal(silence.hits, 1);

  await arrives(recording, "a", "3");
  assert.ok(recording.reconnects.includes("inactive"), `reconnects: ${recording.reconnects.join(", ")}`);
  const closed = configMapRequests(proxy, ns, "watch").find((r) => r.id === silenced.id);
  // The apiserver keeps a watch open for its 5–10 min timeout: the watcher closed this one itself.
  assert.notEqual(closed?.durationMs, undefined, "the silent stream was closed");
  const resumed = configMapRequests(proxy, ns, "watch").find((r) => r.id > silenced.id);
  const from = BigInt(resumed?.query.get("resourceVersion") || "0");
  assert.ok(from >= BigInt(lastSeen) && from < BigInt(missed), "resumed from before the silenced change");

  await setStep(ns, "a", "4");
  await arrives(recording, "a", "4");
  assert.deepEqual(appliedSteps(recording, "a"), ["2", "3", "4"]);
  assert.deepEqual(recording.relists, ["start"]);
});

test("repeated 500s on the watch request are retried with growing delays, then the watch resumes", async (t) => {
  const ns = await testNamespace(t);
  await setStep(ns, "a", "1");
  const { proxy, client } = await proxiedClient(t);
  const recording = await recordWatch(t, client, ns, { backoff: { initialMs: 200, maxMs: 3200 } });
  const lastSeen = await setStep(ns, "a", "2");
  await arrives(recording, "a", "2");

  const failing = proxy.inject(watchOf(ns), { status: 500 });
  proxy.killWatches();
  const failed = await eventually(
    () => {
      const answered = configMapRequests(proxy, ns, "watch").filter((r) => r.status === 500);
      return answered.length >= 5 && answered;
    },
    { what: "five failed watch requests", timeoutMs: 30_000 },
  );
  failing.remove();
  const gaps = failed.slice(1, 5).map((r, i) => r.startedAt - (failed[i]?.startedAt ?? 0));
  t.diagnostic(`spacing of the failed watch requests: ${gaps.join(", ")} ms`);
  // Delay n is uniform in [d/2, d] with d doubling: never shorter than the one before, and at
  // least twice as long as the one two steps earlier.
  for (let i = 1; i < gaps.length; i++) {
    const gap = gaps[i] as number;
    const previous = gaps[i - 1] as number;
    assert.ok(gap >= previous * 0.8, `gap ${i} (${gap} ms) shrank from ${previous} ms`);
    if (i >= 2) assert.ok(gap > 1.5 * (gaps[i - 2] as number), `gaps do not grow: ${gaps.join(", ")}`);
  }
  assert.ok((gaps[3] as number) > 3 * (gaps[0] as number), `gaps do not grow: ${gaps.join(", ")}`);
  assertResumesFrom(failed, lastSeen, recording.bookmarks);

  await setStep(ns, "a", "3");
  await arrives(recording, "a", "3");
  assert.deepEqual(configMapRequests(proxy, ns, "list"), []);
  assert.deepEqual(recording.relists, ["start"]);
  assert.deepEqual(appliedSteps(recording, "a"), ["2", "3"]);
});
