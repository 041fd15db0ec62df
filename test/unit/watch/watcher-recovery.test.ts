import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import { ClientClosedError, UnreachableError } from "../../../src/client/index.ts";
import { expiredEvent, failure, startWatch } from "./harness.ts";
import { flush, isSettled, object } from "./support.ts";

const tooLarge = {
  details: { causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }] },
};

/** A watcher that has streamed its initial state (a@1, synced at rv 5) and is now watching. */
async function syncedWatch(t: TestContext) {
  const watcher = startWatch(t);
  const first = watcher.client.stream().send("ADDED", object("a", "1")).bookmark("5", true);
  assert.deepEqual(await watcher.take(3), ["init", "initApply a@1", "initDone"]);
  return { ...watcher, first };
}

describe("watch: a closed client", () => {
  it("ends the watch with ClientClosedError instead of reconnecting forever", async (t) => {
    const { client, events, first, clock } = await syncedWatch(t);
    const next = events.next();
    first.end();
    await flush();
    client.failWatch(new ClientClosedError("https://s"));
    await assert.rejects(next, { code: "KL_CLIENT_CLOSED" });
    clock.advance(60_000);
    await flush();
    assert.equal(client.watches.length, 2, "no reconnection after the client closed");
  });
});

describe("watch: resuming", () => {
  it("resumes at once from the last resourceVersion, bookmarks included, after a clean close", async (t) => {
    const { client, take, events, first, calls } = await syncedWatch(t);
    first.send("MODIFIED", object("a", "6")).bookmark("9").end();
    assert.deepEqual(await take(), ["apply a@6"]);
    const next = events.next();
    await flush();
    assert.equal(client.watches.length, 2, "no backoff after a clean close");
    assert.equal(client.watches[1]?.resourceVersion, "9");
    assert.equal(client.watches[1]?.sendInitialEvents, undefined);
    assert.equal(client.watches[1]?.resourceVersionMatch, undefined);
    assert.equal(client.lists.length, 0);
    client.stream().send("DELETED", object("a", "10"));
    assert.equal((await next).value?.type, "delete");
    assert.ok(calls.includes("reconnect closed"));
    assert.ok(!calls.some((c) => c.startsWith("retry")));
  });

  it("resumes from the list's resourceVersion when nothing arrived since", async (t) => {
    const { client, take } = startWatch(t, { initialState: "list" });
    client.page([object("a", "1")], "10");
    client.stream().bookmark("15").end();
    client.stream().send("ADDED", object("b", "16"));
    assert.deepEqual(await take(4), ["init", "initApply a@1", "initDone", "apply b@16"]);
    assert.deepEqual(
      client.watches.map((w) => w.resourceVersion),
      ["10", "15"],
    );
  });

  it("tells onProgress each resourceVersion it caught up to, once the events before it were consumed", async (t) => {
    const progress: string[] = [];
    const { client, take, events } = startWatch(t, {
      initialState: "list",
      onProgress: (rv) => progress.push(rv),
    });
    client.page([object("a", "1")], "10");
    client.stream().send("MODIFIED", object("a", "12")).bookmark("15");
    assert.deepEqual(await take(3), ["init", "initApply a@1", "initDone"]);
    assert.deepEqual(progress, [], "not before initDone was consumed");
    assert.deepEqual(await take(), ["apply a@12"]);
    assert.deepEqual(progress, ["10"], "the list's, not yet the event's");
    void events.next();
    await flush();
    assert.deepEqual(progress, ["10", "12", "15"]);
  });

  it("backs off and reconnects from the same resourceVersion after a network error", async (t) => {
    const { client, clock, events, first, calls, delays } = await syncedWatch(t);
    first.send("MODIFIED", object("a", "6"));
    await events.next();
    const next = events.next();
    first.body.destroy(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }));
    await flush();
    client.failWatch(new UnreachableError("https://s", new Error("refused")));
    clock.advance(499);
    await flush();
    assert.equal(client.watches.length, 1, "waits before reconnecting");
    clock.advance(1);
    await flush();
    assert.equal(client.watches.length, 2);
    clock.advance(1_000);
    await flush();
    assert.equal(client.watches.length, 3, "the second wait is longer");
    client.stream().send("MODIFIED", object("a", "7"));
    assert.equal((await next).value?.type, "apply");
    assert.deepEqual(
      client.watches.map((w) => w.resourceVersion),
      ["", "6", "6"],
    );
    assert.deepEqual(delays, [500, 1_000]);
    assert.ok(calls.includes("reconnect error"));
    assert.ok(!calls.includes("relist error"));
  });

  it("retries every 1–2 s while the apiserver is away, however long it stays away", async (t) => {
    const { client, clock, events, first, delays } = await syncedWatch(t);
    const next = events.next();
    first.body.destroy(Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }));
    await flush();
    const refused = () => new UnreachableError("https://s", new Error("ECONNREFUSED"));
    const installing = failure(503, "ServiceUnavailable");
    for (const err of [refused(), refused(), installing, refused(), refused()]) {
      client.failWatch(err);
      clock.advance(delays.at(-1) ?? Number.NaN);
      await flush();
    }
    assert.deepEqual(delays, [500, 1_000, 1_000, 1_000, 1_000, 1_000], "never past the outage cap");
    client.stream().send("MODIFIED", object("a", "7"));
    clock.advance(1_000);
    assert.equal((await next).value?.type, "apply");
  });

  it("backs off further for failures that are not the apiserver being away", async (t) => {
    const { client, clock, events, first, delays } = await syncedWatch(t);
    void events.next();
    await flush();
    first.body.destroy(new Error("boom"));
    await flush();
    for (let i = 0; i < 4; i++) {
      client.failWatch(failure(500, "InternalError"));
      clock.advance(delays.at(-1) ?? Number.NaN);
      await flush();
    }
    assert.deepEqual(delays, [500, 1_000, 2_000, 4_000, 4_000], "up to the maximum backoff");
  });
});

describe("watch: relisting", () => {
  it("relists at once on an ERROR event with code 410", async (t) => {
    const { client, take, first, calls } = await syncedWatch(t);
    first.send("ERROR", expiredEvent);
    client.stream().send("ADDED", object("a", "20")).bookmark("21", true);
    assert.deepEqual(await take(3), ["init", "initApply a@20", "initDone"]);
    assert.equal(client.watches[1]?.resourceVersion, "");
    assert.equal(client.watches[1]?.sendInitialEvents, true);
    assert.ok(calls.includes("relist expired"));
    assert.ok(!calls.some((c) => c.startsWith("retry")), "no backoff before the first relist");
  });

  it("relists at once when resuming fails with ExpiredError", async (t) => {
    const { client, take } = startWatch(t, { initialState: "list" });
    client.page([object("a", "1")], "10");
    client.failWatch(failure(410, "Expired"));
    client.page([object("a", "30")], "31");
    assert.deepEqual(await take(6), [
      "init",
      "initApply a@1",
      "initDone",
      "init",
      "initApply a@30",
      "initDone",
    ]);
    assert.equal(client.lists.length, 2);
  });

  it("backs off instead of relisting at once when the relist expires too", async (t) => {
    const { client, clock, events, first, calls, delays } = await syncedWatch(t);
    first.send("ERROR", expiredEvent);
    client.failWatch(failure(410, "Expired")); // The streaming relist fails: a list at once...
    client.failList(failure(410, "Expired")); // ...which expires too: back off.
    assert.equal((await events.next()).value?.type, "init", "the list fallen back to begins");
    const next = events.next();
    await flush();
    assert.equal(client.watches.length, 2);
    assert.deepEqual(delays, [0, 500]);
    assert.equal(await isSettled(next), false);
    clock.advance(500);
    client.page([], "40");
    assert.equal((await next).value?.type, "init");
    assert.equal((await events.next()).value?.type, "initDone");
    assert.equal(client.lists.length, 2);
    assert.deepEqual(
      calls.filter((c) => c.startsWith("relist") || c.startsWith("retry")),
      [
        "relist start",
        "relist expired",
        "retry ExpiredError",
        "relist expired",
        "retry ExpiredError",
        "relist expired",
      ],
    );
  });

  it("relists at once again when a watch expires after a successful relist", async (t) => {
    const { client, take, events, first, delays } = await syncedWatch(t);
    first.send("ERROR", expiredEvent);
    const second = client.stream().bookmark("20", true);
    assert.deepEqual(await take(2), ["init", "initDone"]);
    second.send("MODIFIED", object("a", "21")).send("ERROR", expiredEvent);
    assert.deepEqual(await take(), ["apply a@21"]);
    const next = events.next();
    await flush();
    assert.deepEqual(delays, [], "a relist that succeeded is progress, not a repeated expiry");
    assert.equal(client.watches.length, 3);
    client.stream().bookmark("30", true);
    assert.equal((await next).value?.type, "init");
  });

  it("relists when the server does not know the resourceVersion yet (ResourceVersionTooLarge)", async (t) => {
    const { client, take, calls } = startWatch(t, { initialState: "list" });
    client.page([], "10");
    client.failWatch(failure(504, "Timeout", tooLarge));
    client.page([object("a", "2")], "12");
    assert.deepEqual(await take(5), ["init", "initDone", "init", "initApply a@2", "initDone"]);
    assert.ok(calls.includes("relist too-large-resource-version"));
  });

  it("relists on an ERROR event saying the resourceVersion is too large", async (t) => {
    const { client, take, first } = await syncedWatch(t);
    first.send("ERROR", { kind: "Status", code: 504, reason: "Timeout", ...tooLarge });
    client.stream().bookmark("7", true);
    assert.deepEqual(await take(2), ["init", "initDone"]);
    assert.equal(client.watches[1]?.sendInitialEvents, true);
  });

  it("treats other timeouts as errors: backs off and resumes without relisting", async (t) => {
    const { client, clock, events, first, delays } = await syncedWatch(t);
    first.send("ERROR", { kind: "Status", code: 504, reason: "Timeout", message: "request timed out" });
    const next = events.next();
    await flush();
    assert.deepEqual(delays, [500]);
    clock.advance(500);
    client.stream().send("ADDED", object("b", "8"));
    assert.equal((await next).value?.type, "apply");
    assert.equal(client.watches[1]?.resourceVersion, "5");
  });
});

describe("watch: streams that end early", () => {
  it("backs off when a resumed stream closes at once without any event", async (t) => {
    const { client, clock, events, first, calls, delays } = await syncedWatch(t);
    first.end();
    const next = events.next();
    await flush();
    assert.equal(client.watches.length, 2, "a clean close with events resumes at once");
    client.stream().end();
    await flush();
    assert.equal(client.watches.length, 2);
    client.stream().end();
    clock.advance(500);
    await flush();
    assert.equal(client.watches.length, 3);
    clock.advance(999);
    await flush();
    assert.equal(client.watches.length, 3, "the wait grows while streams keep closing at once");
    client.stream().send("ADDED", object("b", "6"));
    clock.advance(1);
    assert.equal((await next).value?.type, "apply");
    assert.deepEqual(delays, [500, 1_000]);
    assert.ok(calls.includes("retry WatchClosedEarlyError"));
  });

  it("backs off and lists again when a list fallen back to fails too", async (t) => {
    const { client, clock, take, events, delays } = startWatch(t);
    client.stream().send("ADDED", object("a", "1")).end();
    client.failList(new Error("connection reset"));
    assert.deepEqual(await take(3), ["init", "initApply a@1", "init"]);
    const next = events.next();
    await flush();
    assert.deepEqual(delays, [0, 500], "the fallback is at once; the failed list backs off");
    client.page([object("a", "1")], "2");
    clock.advance(500);
    assert.equal((await next).value?.type, "init");
    assert.deepEqual(await take(2), ["initApply a@1", "initDone"]);
    assert.equal(client.lists.length, 2);
  });

  it("resets the backoff after a stream that delivered events", async (t) => {
    const { client, clock, events, first, delays } = await syncedWatch(t);
    first.end();
    client.stream().end();
    const next = events.next();
    await flush();
    clock.advance(500);
    client.stream().send("ADDED", object("b", "6")).end();
    assert.equal((await next).value?.type, "apply");
    client.stream().end();
    const after = events.next();
    await flush();
    assert.deepEqual(delays, [500, 500]);
    clock.advance(500);
    client.stream().send("ADDED", object("c", "7"));
    assert.equal((await after).value?.type, "apply");
  });
});
