import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { configMap, driven, settle, setup } from "./support.ts";

const micro = (ms: number) => new Date(ms).toISOString().replace("Z", "000Z");

describe("EventRecorder: repeats become a series", () => {
  it("coalesces repeats that come before the create is sent into the created Event's series", async () => {
    const { client, clock, recorder } = setup();
    for (let i = 0; i < 10; i++)
      recorder.warning(configMap("settings"), "Failed", "Reconcile", "bucket missing");
    await recorder.flush();
    assert.deepEqual(
      client.calls.map((c) => c.verb),
      ["create"],
    );
    assert.deepEqual(client.callsOf("create")[0]?.body.series, {
      count: 10,
      lastObservedTime: micro(clock.now()),
    });
    assert.equal(recorder.stats.recorded, 10);
  });

  it("merge patches the series at most once per update interval, never creating a second object", async () => {
    const { client, clock, recorder } = setup({ seriesUpdateIntervalMs: 30_000 });
    const obj = configMap("settings");
    recorder.normal(obj, "Synced", "Sync", "in sync");
    await recorder.flush();
    const name = client.callsOf("create")[0]?.name;

    for (let i = 0; i < 5; i++) {
      clock.advance(1000);
      recorder.normal(obj, "Synced", "Sync", "in sync");
    }
    await settle();
    assert.equal(client.callsOf("patch").length, 0, "no write before the interval has passed");
    clock.advance(25_000);
    await settle();
    assert.equal(client.callsOf("patch").length, 1, "one write when it has");

    for (let i = 0; i < 3; i++) {
      clock.advance(1000);
      recorder.normal(obj, "Synced", "Sync", "in sync");
    }
    const lastObserved = clock.now();
    await recorder.close();

    const patches = client.callsOf("patch");
    assert.deepEqual(
      patches.map((p) => [p.name, p.type, p.patch.series.count]),
      [
        [name, "merge", 6],
        [name, "merge", 9],
      ],
    );
    assert.deepEqual(patches[1]?.patch, { series: { count: 9, lastObservedTime: micro(lastObserved) } });
    assert.equal(client.callsOf("create").length, 1);
    assert.equal(client.events()[0]?.series?.count, 9);
    assert.equal(
      client.events()[0]?.eventTime,
      micro(Date.UTC(2025, 0, 2, 3, 4, 5, 678)),
      "eventTime stays the first occurrence's",
    );
    assert.equal(recorder.stats.seriesUpdates, 2);
  });

  it("sends a repeat at once when the interval since the last write has already passed", async () => {
    const { client, clock, recorder } = setup({ seriesUpdateIntervalMs: 30_000 });
    recorder.normal(configMap("settings"), "Synced", "Sync");
    await recorder.flush();
    clock.advance(31_000);
    recorder.normal(configMap("settings"), "Synced", "Sync");
    await settle();
    assert.deepEqual(
      client.callsOf("patch").map((p) => p.patch.series.count),
      [2],
    );
    assert.equal(clock.pending, 0, "no timer was needed");
  });

  it("starts a new Event after the series window, and the old series still gets its final count", async () => {
    const { client, clock, recorder } = setup({ seriesWindowMs: 360_000, seriesUpdateIntervalMs: 30_000 });
    recorder.normal(configMap("settings"), "Synced", "Sync");
    await settle();
    clock.advance(10_000);
    recorder.normal(configMap("settings"), "Synced", "Sync"); // pending until the interval
    clock.advance(360_001); // the window closes; the pending series write goes out meanwhile
    recorder.normal(configMap("settings"), "Synced", "Sync");
    await recorder.flush();

    const events = client.events();
    assert.equal(events.length, 2);
    assert.deepEqual(
      events.map((e) => e.series?.count),
      [2, undefined],
    );
    assert.notEqual(events[0]?.metadata.name, events[1]?.metadata.name);
  });

  it("keeps events apart that differ in type, reason, action, note or related object", async () => {
    const { client, recorder } = setup();
    const obj = configMap("settings");
    const job = configMap("job-a");
    recorder.normal(obj, "Synced", "Sync", "n");
    recorder.warning(obj, "Synced", "Sync", "n");
    recorder.normal(obj, "Other", "Sync", "n");
    recorder.normal(obj, "Synced", "Other", "n");
    recorder.normal(obj, "Synced", "Sync", "other note");
    recorder.normal(obj, "Synced", "Sync", "n", { related: job });
    recorder.normal(configMap("settings", "shop", { resourceVersion: "8" }), "Synced", "Sync", "n");
    await recorder.flush();
    assert.equal(client.callsOf("create").length, 6);
    const normal = client
      .events()
      .find(
        (e) =>
          e.type === "Normal" && e.note === "n" && !e.related && e.reason === "Synced" && e.action === "Sync",
      );
    assert.equal(normal?.series?.count, 2, "a new resourceVersion of the same object is the same event");
    assert.equal(
      normal?.regarding?.resourceVersion,
      "7",
      "the reference keeps the first occurrence's version",
    );
  });

  it("treats objects with the same name but another uid as different objects", async () => {
    const { client, recorder } = setup();
    recorder.normal(configMap("settings"), "Synced", "Sync");
    recorder.normal(configMap("settings", "shop", { uid: "recreated" }), "Synced", "Sync");
    await recorder.flush();
    assert.equal(client.callsOf("create").length, 2);
  });

  it("creates the Event again, under the same name and with the full count, when the series patch finds it gone", async () => {
    const { client, clock, recorder } = setup({ seriesUpdateIntervalMs: 0 });
    recorder.normal(configMap("settings"), "Synced", "Sync", "n");
    await recorder.flush();
    const name = client.callsOf("create")[0]?.name ?? "";
    client.stored.clear(); // someone deleted it (or its TTL ran out)
    clock.advance(1000);
    recorder.normal(configMap("settings"), "Synced", "Sync", "n");
    recorder.normal(configMap("settings"), "Synced", "Sync", "n");
    await recorder.flush();

    assert.deepEqual(
      client.calls.map((c) => c.verb),
      ["create", "patch", "create"],
    );
    const recreated = client.callsOf("create")[1];
    assert.equal(recreated?.name, name);
    assert.deepEqual(recreated?.body.series, { count: 3, lastObservedTime: micro(clock.now()) });
    assert.equal(client.events().length, 1);
    assert.deepEqual(recorder.stats, {
      recorded: 3,
      created: 2,
      seriesUpdates: 0,
      droppedRateLimited: 0,
      droppedQueueFull: 0,
      failed: 0,
    });
  });

  it("patches the series when a retried create finds its own earlier attempt already stored", async () => {
    const { client, clock, recorder } = setup({ retry: { baseDelayMs: 1000 } });
    client.faults.push((call) => {
      if (call.verb === "create") client.stored.set(`${call.namespace}/${call.name}`, call.body); // it landed...
      return Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }); // ...but the answer was lost
    });
    recorder.normal(configMap("settings"), "Synced", "Sync");
    recorder.normal(configMap("settings"), "Synced", "Sync");
    await driven(clock, recorder.flush());
    assert.deepEqual(
      client.calls.map((c) => c.verb),
      ["create", "create", "patch"],
    );
    assert.equal(client.events().length, 1);
    assert.equal(client.events()[0]?.series?.count, 2);
  });
});
