/**
 * `watch()` through the fault proxy in front of the real apiserver: how it gets the initial
 * state (streamed with `sendInitialEvents`, or listed when the server refuses that), and what a
 * lost connection costs — a resume from the last resourceVersion seen, never a relist, and no
 * lost change, except for changes that a later delivered event already moved the resume point
 * past: those only a relist brings back.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigMap } from "../../../src/api/index.ts";
import { eventually, testClient, testNamespace } from "../support.ts";
import {
  appliedSteps,
  arrives,
  assertResumesFrom,
  configMapRequests,
  proxiedClient,
  type Recording,
  recordWatch,
  type SeenRequest,
  setStep,
} from "./support.ts";

const watchOf = (ns: string) => ({ verb: "watch", resource: "configmaps", namespace: ns }) as const;

/** The next watch request after the first `seen`, once it reached the proxy. */
const nextWatch = (proxy: Parameters<typeof configMapRequests>[0], ns: string, seen: number) =>
  eventually(() => configMapRequests(proxy, ns, "watch")[seen], { what: "the watcher to reconnect" });

/**
 * A resume from the last resourceVersion seen (`lastSeen`, or a later one a bookmark carried),
 * asking for no initial state.
 */
const assertResumeFrom = (request: SeenRequest, lastSeen: string, recording: Recording) => {
  assertResumesFrom([request], lastSeen, recording.bookmarks);
  assert.equal(request.query.get("sendInitialEvents"), null, "a resume asks for no initial state");
  assert.equal(request.query.get("resourceVersionMatch"), null);
  assert.equal(request.query.get("allowWatchBookmarks"), "true");
};

test("against v1.36 the initial state is streamed with sendInitialEvents, without any list", async (t) => {
  const ns = await testNamespace(t);
  await setStep(ns, "a", "1");
  await setStep(ns, "b", "1");
  const { proxy, client } = await proxiedClient(t);
  const recording = await recordWatch(t, client, ns);

  const [first] = configMapRequests(proxy, ns, "watch");
  assert.ok(first);
  assert.equal(first.status, 200);
  assert.equal(first.query.get("sendInitialEvents"), "true");
  assert.equal(first.query.get("resourceVersionMatch"), "NotOlderThan");
  assert.equal(first.query.get("resourceVersion"), "", "a consistent read of the current state");
  assert.equal(first.query.get("allowWatchBookmarks"), "true");
  const timeout = Number(first.query.get("timeoutSeconds"));
  assert.ok(timeout >= 300 && timeout <= 600, `timeoutSeconds ${timeout} is randomised within 5–10 min`);
  assert.deepEqual(configMapRequests(proxy, ns, "list"), [], "no list request");
  assert.deepEqual(
    recording.events.map((e) => (e.type === "initApply" ? `${e.type}:${e.object.metadata.name}` : e.type)),
    ["init", "initApply:a", "initApply:b", "initDone"],
  );
  assert.deepEqual(recording.relists, ["start"]);

  await setStep(ns, "a", "2");
  await arrives(recording, "a", "2");
  assert.equal(configMapRequests(proxy, ns, "watch").length, 1, "changes arrive on the same stream");
});

test("a 422 on the streaming request falls back to a list, then watches from the list's resourceVersion", async (t) => {
  const ns = await testNamespace(t);
  const createdAt = await setStep(ns, "a", "1");
  const { proxy, client } = await proxiedClient(t);
  proxy.inject(
    { ...watchOf(ns), times: 1 },
    {
      status: 422,
      reason: "Invalid",
      message: "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
    },
  );
  const recording = await recordWatch(t, client, ns);

  const [refused] = configMapRequests(proxy, ns, "watch");
  const [list, ...moreLists] = configMapRequests(proxy, ns, "list");
  assert.ok(refused && list);
  assert.equal(refused.status, 422);
  assert.equal(refused.query.get("sendInitialEvents"), "true");
  assert.ok(list.id > refused.id, "the list follows the refused stream");
  assert.equal(list.status, 200);
  assert.equal(list.query.get("limit"), "500", "the list is paged");
  assert.deepEqual(moreLists, []);
  assert.deepEqual(
    recording.events.map((e) => (e.type === "initApply" ? `${e.type}:${e.object.metadata.name}` : e.type)),
    ["init", "initApply:a", "initDone"],
  );

  const w = await nextWatch(proxy, ns, 1);
  assert.ok(w.id > list.id);
  const from = w.query.get("resourceVersion") ?? "";
  assert.match(from, /^\d+$/);
  assert.ok(BigInt(from) >= BigInt(createdAt), "watches from the list's resourceVersion");
  assert.equal(w.query.get("sendInitialEvents"), null, "no second streaming attempt");
  await setStep(ns, "a", "2");
  await arrives(recording, "a", "2");
});

test("after killWatches the watch resumes from the last resourceVersion seen, without a relist, and misses nothing", async (t) => {
  const ns = await testNamespace(t);
  await setStep(ns, "a", "1");
  await setStep(ns, "gone", "1");
  const { proxy, client } = await proxiedClient(t);
  const recording = await recordWatch(t, client, ns);
  // Bookmarks move the resume point too; drop them from now on, so that the last resourceVersion
  // the watcher saw is that of the last event it yielded.
  proxy.inject(watchOf(ns), { dropEvents: "BOOKMARK" });
  const lastSeen = await setStep(ns, "a", "2");
  await arrives(recording, "a", "2");

  // Hold the reconnect at the proxy so the next changes happen while no watch is connected.
  const hold = proxy.inject(watchOf(ns), { blackhole: true });
  const seen = configMapRequests(proxy, ns, "watch").length;
  assert.equal(proxy.killWatches(), 1);
  const resume = await nextWatch(proxy, ns, seen);
  assertResumeFrom(resume, lastSeen, recording);
  await setStep(ns, "a", "3");
  await setStep(ns, "b", "1");
  await (await testClient()).delete(ConfigMap, "gone", { namespace: ns });
  await setStep(ns, "a", "4");
  hold.remove();

  await arrives(recording, "a", "4");
  assert.deepEqual(appliedSteps(recording, "a"), ["2", "3", "4"], "every change once, in order");
  assert.deepEqual(appliedSteps(recording, "b"), ["1"]);
  assert.ok(recording.events.some((e) => e.type === "delete" && e.object.metadata.name === "gone"));
  assert.deepEqual(configMapRequests(proxy, ns, "list"), []);
  assert.equal(recording.events.filter((e) => e.type === "init").length, 1, "no relist");
  assert.deepEqual(recording.relists, ["start"]);
  assert.deepEqual(recording.reconnects, ["error"]);
});

test("events dropped before the connection is killed are delivered by the resume from the older resourceVersion", async (t) => {
  const ns = await testNamespace(t);
  await setStep(ns, "a", "1");
  const { proxy, client } = await proxiedClient(t);
  const recording = await recordWatch(t, client, ns);
  const lastSeen = await setStep(ns, "a", "2");
  await arrives(recording, "a", "2");

  const drop = proxy.inject(watchOf(ns), { dropEvents: "all" });
  const firstDropped = await setStep(ns, "a", "3");
  await setStep(ns, "b", "1");
  const stream = () => configMapRequests(proxy, ns, "watch")[0]?.events;
  await eventually(() => (stream()?.dropped ?? 0) >= 2, { what: "the proxy to drop both changes" });
  assert.deepEqual(appliedSteps(recording, "a"), ["2"], "the dropped change did not arrive");

  drop.remove();
  assert.equal(proxy.killWatches(), 1);
  const resume = await nextWatch(proxy, ns, 1);
  assertResumeFrom(resume, lastSeen, recording);
  const resumedFrom = BigInt(resume.query.get("resourceVersion") ?? "");
  assert.ok(resumedFrom < BigInt(firstDropped), "the resume point lies before the dropped changes");
  await arrives(recording, "b", "1");
  assert.deepEqual(appliedSteps(recording, "a"), ["2", "3"]);
  assert.deepEqual(recording.relists, ["start"]);
});

/*
 * Resume semantics, precisely: a resumed watch replays every change after the resume point, which
 * is the resourceVersion of the last event (or bookmark) the watcher received. A change whose
 * event was lost before a later event was delivered lies behind that point, so no resume can
 * replay it; the watcher cannot know it is missing. Only a relist (after a 410, or the
 * controller's periodic resync reading the cache) brings it back.
 */
test("a change dropped behind a later delivered event is not replayed by a resume; a relist brings it back", async (t) => {
  const ns = await testNamespace(t);
  await setStep(ns, "a", "1");
  const { proxy, client } = await proxiedClient(t);
  const recording = await recordWatch(t, client, ns);

  // Bookmarks are dropped too, so that the resume point is that of the last event delivered.
  const drop = proxy.inject(watchOf(ns), { dropEvents: ["MODIFIED", "BOOKMARK"] });
  await setStep(ns, "a", "2");
  const later = await setStep(ns, "b", "1");
  await arrives(recording, "b", "1");
  drop.remove();

  const seen = configMapRequests(proxy, ns, "watch").length;
  proxy.killWatches();
  assertResumeFrom(await nextWatch(proxy, ns, seen), later, recording);
  await setStep(ns, "c", "1");
  await arrives(recording, "c", "1");
  // Events arrive in resourceVersion order: had the resume replayed a's change, it came before c's.
  assert.deepEqual(appliedSteps(recording, "a"), [], "the resume cannot replay what lies behind it");

  proxy.inject({ ...watchOf(ns), times: 1 }, { status: 410, reason: "Expired", message: "too old" });
  proxy.killWatches();
  const relisted = await eventually(
    () => recording.events.filter((e) => e.type === "initDone").length === 2 && recording,
    { what: "a relist after the 410" },
  );
  const fresh = relisted.events.slice(relisted.events.findLastIndex((e) => e.type === "init"));
  const a = fresh.find((e) => e.type === "initApply" && e.object.metadata.name === "a");
  assert.equal(a?.type === "initApply" ? a.object.data?.step : undefined, "2", "the relist has a's change");
  assert.deepEqual(recording.relists, ["start", "expired"]);
});
