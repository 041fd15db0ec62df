import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startWatch } from "./harness.ts";
import { flush, isSettled, object } from "./support.ts";

describe("watch: inactivity", () => {
  it("destroys a silent stream after inactivityMs and reconnects from the same resourceVersion", async (t) => {
    const { client, clock, take, events, calls, delays } = startWatch(t, { inactivityMs: 10_000 });
    const first = client.stream().bookmark("5", true).send("MODIFIED", object("a", "6"));
    assert.deepEqual(await take(3), ["init", "initDone", "apply a@6"]);
    const next = events.next();
    await flush();
    clock.advance(9_999);
    await flush();
    assert.equal(first.destroyed, false);
    clock.advance(1);
    await flush();
    assert.equal(first.destroyed, true);
    assert.deepEqual(
      calls.filter((c) => c.startsWith("retry")),
      ["retry WatchInactiveError"],
    );
    assert.equal(client.watches.length, 1, "reconnects after the backoff, not at once");
    clock.advance(delays[0] ?? Number.NaN);
    await flush();
    assert.equal(client.watches.length, 2);
    assert.equal(client.watches[1]?.resourceVersion, "6");
    assert.ok(calls.includes("reconnect inactive"));
    client.stream().send("DELETED", object("a", "7"));
    assert.equal((await next).value?.type, "delete");
  });

  it("counts any data, bookmarks included, as activity", async (t) => {
    const { client, clock, take, events } = startWatch(t, { inactivityMs: 10_000 });
    const first = client.stream().bookmark("5", true);
    await take(2);
    const next = events.next();
    for (let i = 0; i < 5; i++) {
      await flush();
      clock.advance(9_000);
      first.bookmark(String(10 + i));
      await flush();
    }
    assert.equal(first.destroyed, false);
    first.send("ADDED", object("b", "20"));
    assert.equal((await next).value?.type, "apply");
    assert.equal(client.watches.length, 1);
  });

  it("does not count the time the consumer spends between events", async (t) => {
    const { client, clock, take, events } = startWatch(t, { inactivityMs: 10_000 });
    const first = client.stream().bookmark("5", true).send("ADDED", object("b", "6"));
    await take(2);
    clock.advance(3_600_000);
    await flush();
    assert.equal(first.destroyed, false, "a slow consumer is not a silent server");
    assert.deepEqual(await take(), ["apply b@6"]);
    const next = events.next();
    await flush();
    clock.advance(9_999);
    await flush();
    assert.equal(first.destroyed, false, "the timer starts again when the consumer asks for more");
    first.send("DELETED", object("b", "7"));
    assert.equal((await next).value?.type, "delete");
    assert.equal(client.watches.length, 1);
  });

  it("uses 180 s by default", async (t) => {
    const { client, clock, take, events } = startWatch(t);
    const first = client.stream().bookmark("5", true);
    await take(2);
    void events.next();
    await flush();
    clock.advance(179_999);
    await flush();
    assert.equal(first.destroyed, false);
    clock.advance(1);
    await flush();
    assert.equal(first.destroyed, true);
  });
});

describe("watch: stopping", () => {
  it("ends the generator when the signal aborts while waiting for events", async (t) => {
    const { client, stop, take, events } = startWatch(t);
    const first = client.stream().bookmark("5", true);
    await take(2);
    const next = events.next();
    await flush();
    assert.equal(await isSettled(next), false);
    stop.abort();
    assert.deepEqual(await next, { done: true, value: undefined });
    assert.equal(first.destroyed, true);
    assert.equal(client.watches.length, 1, "no reconnect after the abort");
  });

  it("ends the generator when the signal aborts during a backoff", async (t) => {
    const { client, stop, events, delays } = startWatch(t, { initialState: "list" });
    client.failList(new Error("connection reset"));
    await events.next();
    const next = events.next();
    await flush();
    assert.deepEqual(delays, [500]);
    stop.abort();
    assert.deepEqual(await next, { done: true, value: undefined });
    assert.equal(client.lists.length, 1);
  });

  it("ends the generator when the signal aborts while a list is pending", async (t) => {
    const { client, stop, events } = startWatch(t, { initialState: "list" });
    await events.next();
    const next = events.next();
    await flush();
    assert.equal(client.lists.length, 1);
    stop.abort();
    assert.deepEqual(await next, { done: true, value: undefined });
  });

  it("does nothing when the signal has already aborted", async (t) => {
    const { client, stop, events } = startWatch(t);
    stop.abort();
    assert.deepEqual(await events.next(), { done: true, value: undefined });
    assert.equal(client.watches.length, 0);
  });
});
