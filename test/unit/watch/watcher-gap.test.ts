import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import type { WatcherOptions } from "../../../src/watch/index.ts";
import { startWatch } from "./harness.ts";
import { flush, object } from "./support.ts";

/** A watcher synced by streaming (so the server has sent a bookmark) that has seen a@6, waiting for more. */
async function watching(t: TestContext, options: WatcherOptions = {}) {
  const watcher = startWatch(t, options);
  const first = watcher.client.stream().bookmark("5", true).send("MODIFIED", object("a", "6"));
  assert.deepEqual(await watcher.take(3), ["init", "initDone", "apply a@6"]);
  const next = watcher.events.next();
  await flush();
  return { ...watcher, first, next };
}

describe("watch: gaps", () => {
  it("resumes from the resourceVersion seen before a gap longer than a bookmark interval, so the server replays what the gap lost", async (t) => {
    const { client, clock, take, first, next, calls } = await watching(t);
    clock.advance(65_001);
    first.send("MODIFIED", object("b", "9"));
    await flush();
    assert.equal(first.destroyed, true, "what came after the gap is not trusted");
    assert.equal(client.watches.length, 2, "resumed at once: nothing failed");
    assert.equal(client.watches[1]?.resourceVersion, "6", "not 9: the events between 6 and 9 come again");
    assert.ok(calls.includes("reconnect gap"));
    assert.ok(!calls.some((c) => c.startsWith("retry")), "not reported as a failure: a quiet kind gaps too");
    client.stream().send("ADDED", object("lost", "7")).send("MODIFIED", object("b", "9"));
    assert.deepEqual([(await next).value?.type, ...(await take())], ["apply", "apply b@9"]);
  });

  it("trusts what arrives within the bookmark interval and its slack", async (t) => {
    const { client, clock, first, next } = await watching(t);
    clock.advance(65_000);
    first.send("MODIFIED", object("b", "9"));
    assert.equal((await next).value?.type, "apply");
    assert.equal(first.destroyed, false);
    assert.equal(client.watches.length, 1);
  });

  it("counts bookmarks as news: a quiet kind's stream is not a gap", async (t) => {
    const { client, clock, first, next } = await watching(t);
    for (let rv = 10; rv < 15; rv++) {
      clock.advance(60_000);
      first.bookmark(String(rv));
      await flush();
    }
    first.send("MODIFIED", object("b", "20"));
    assert.equal((await next).value?.type, "apply");
    assert.equal(client.watches.length, 1);
  });

  it("does not count the time the consumer spends between events", async (t) => {
    const { client, clock, take } = startWatch(t);
    const stream = client.stream().bookmark("5", true).send("MODIFIED", object("a", "6"));
    assert.deepEqual(await take(2), ["init", "initDone"]);
    clock.advance(3_600_000);
    assert.deepEqual(await take(), ["apply a@6"], "a slow consumer is not a silent server");
    assert.equal(stream.destroyed, false);
    assert.equal(client.watches.length, 1);
  });

  it("does not apply before the server has sent a bookmark: a watch served from etcd sends none", async (t) => {
    const { client, clock, take, events } = startWatch(t, { initialState: "list" });
    client.page([object("a", "1")], "5");
    const stream = client.stream().send("MODIFIED", object("a", "6"));
    assert.deepEqual(await take(4), ["init", "initApply a@1", "initDone", "apply a@6"]);
    const next = events.next();
    await flush();
    clock.advance(120_000);
    stream.send("MODIFIED", object("a", "7"));
    assert.equal((await next).value?.type, "apply");
    assert.equal(client.watches.length, 1);
  });

  it("takes gapMs from the options", async (t) => {
    const { client, clock, first, calls } = await watching(t, { gapMs: 5_000 });
    clock.advance(5_001);
    first.send("MODIFIED", object("b", "9"));
    await flush();
    assert.equal(first.destroyed, true);
    assert.equal(client.watches[1]?.resourceVersion, "6");
    assert.ok(calls.includes("reconnect gap"));
  });
});
