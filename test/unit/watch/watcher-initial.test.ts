import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { failure, startWatch } from "./harness.ts";
import { type FakeWatchClient, object } from "./support.ts";

/** Request options without the signal, for comparison. */
function withoutSignal(opts: object | undefined): object {
  const { signal: _, ...rest } = (opts ?? {}) as { signal?: AbortSignal };
  return rest;
}

describe("watch: streaming the initial state", () => {
  it("brackets the initial events with init … initDone, ending at the initial-events-end bookmark", async (t) => {
    const { client, take } = startWatch(t);
    client
      .stream()
      .send("ADDED", object("a", "1"))
      .send("ADDED", object("b", "2"))
      .bookmark("3")
      .send("ADDED", object("c", "4"))
      .bookmark("5", true)
      .send("MODIFIED", object("a", "6"))
      .send("ADDED", object("d", "7"))
      .send("DELETED", object("b", "8"));
    assert.deepEqual(await take(8), [
      "init",
      "initApply a@1",
      "initApply b@2",
      "initApply c@4",
      "initDone",
      "apply a@6",
      "apply d@7",
      "delete b@8",
    ]);
    assert.equal(client.watches.length, 1);
    assert.equal(client.lists.length, 0, "no list when the server streams the initial state");
  });

  it("asks for the initial events, bookmarks and a server-side timeout, with the scope", async (t) => {
    const { client, take, stop } = startWatch(t, {
      namespace: "ns",
      labelSelector: "app=web",
      fieldSelector: "metadata.name=a",
      timeoutSeconds: () => 123,
    });
    client.stream().bookmark("1", true);
    await take(2);
    assert.deepEqual(withoutSignal(client.watches[0]), {
      namespace: "ns",
      labelSelector: "app=web",
      fieldSelector: "metadata.name=a",
      metadataOnly: undefined,
      shardSelector: undefined,
      resourceVersion: "",
      resourceVersionMatch: "NotOlderThan",
      sendInitialEvents: true,
      allowWatchBookmarks: true,
      timeoutSeconds: 123,
    });
    assert.equal(client.watches[0]?.signal, stop.signal);
  });

  it("draws the server-side timeout between 300 and 600 s by default", async (t) => {
    const { client, take } = startWatch(t, { random: () => 0.5 });
    client.stream().bookmark("1", true);
    await take(2);
    assert.equal(client.watches[0]?.timeoutSeconds, 450);
  });

  it("reports the start as a relist and every event it receives", async (t) => {
    const { client, take, calls } = startWatch(t);
    client.stream().send("ADDED", object("a", "1")).bookmark("2", true).send("DELETED", object("a", "3"));
    await take(4);
    assert.deepEqual(calls, ["relist start", "event ADDED", "event BOOKMARK", "event DELETED"]);
  });

  it("tags metadata-only objects with the watched kind", async (t) => {
    const { client, events } = startWatch(t, { metadataOnly: true });
    client
      .stream()
      .send("ADDED", { metadata: { name: "a", resourceVersion: "1" } })
      .bookmark("2", true)
      .send("MODIFIED", {
        apiVersion: "meta.k8s.io/v1",
        kind: "PartialObjectMetadata",
        metadata: { name: "a", resourceVersion: "3" },
      });
    const tagged: string[] = [];
    for (let i = 0; i < 4; i++) {
      const result = await events.next();
      if (!result.done && "object" in result.value) {
        const { apiVersion, kind, metadata } = result.value.object;
        tagged.push(`${apiVersion} ${kind} ${metadata.name}@${metadata.resourceVersion}`);
      }
    }
    assert.deepEqual(tagged, ["v1 ConfigMap a@1", "v1 ConfigMap a@3"]);
    assert.equal(client.watches[0]?.metadataOnly, true);
  });

  it("leaves full objects untouched", async (t) => {
    const { client, events } = startWatch(t);
    const odd = {
      apiVersion: "example.com/v1",
      kind: "Other",
      metadata: { name: "a", resourceVersion: "1" },
    };
    client.stream().send("ADDED", odd);
    await events.next();
    assert.deepEqual((await events.next()).value, { type: "initApply", object: odd });
  });
});

describe("watch: listing the initial state", () => {
  it("falls back to a paged list when the server refuses sendInitialEvents (422)", async (t) => {
    const { client, take, calls } = startWatch(t, { pageSize: 2 });
    client.failWatch(failure(422, "Invalid"));
    client.page([object("a", "1"), object("b", "2")], "10", "page-2").page([object("c", "3")], "11");
    client.stream().send("ADDED", object("d", "12"));
    assert.deepEqual(await take(6), [
      "init",
      "initApply a@1",
      "initApply b@2",
      "initApply c@3",
      "initDone",
      "apply d@12",
    ]);
    assert.deepEqual(
      client.lists.map((l) => [l.limit, l.continue]),
      [
        [2, undefined],
        [2, "page-2"],
      ],
    );
    const resumed = client.watches[1];
    assert.equal(resumed?.resourceVersion, "11", "the watch starts at the list's resourceVersion");
    assert.equal(resumed?.sendInitialEvents, undefined);
    assert.equal(resumed?.resourceVersionMatch, undefined);
    assert.deepEqual(calls.slice(0, 2), ["relist start", "relist start"]);
  });

  it("keeps listing, not streaming, for later relists once the server refused", async (t) => {
    const { client, take } = startWatch(t);
    client.failWatch(failure(422, "Invalid"));
    client.page([object("a", "1")], "10");
    client.stream().send("ERROR", { kind: "Status", code: 410, reason: "Expired" });
    await take(3);
    client.page([object("a", "1")], "20");
    assert.deepEqual(await take(3), ["init", "initApply a@1", "initDone"]);
    assert.equal(client.lists.length, 2);
    assert.equal(client.watches.length, 2);
  });

  it("lists first with initialState list, passing the scope and metadataOnly", async (t) => {
    const { client, take } = startWatch(t, {
      initialState: "list",
      namespace: "ns",
      labelSelector: "app=web",
      metadataOnly: true,
    });
    client.page([object("a", "1")], "10");
    client.stream().send("MODIFIED", object("a", "11"));
    assert.deepEqual(await take(4), ["init", "initApply a@1", "initDone", "apply a@11"]);
    assert.deepEqual(withoutSignal(client.lists[0]), {
      namespace: "ns",
      labelSelector: "app=web",
      fieldSelector: undefined,
      metadataOnly: true,
      shardSelector: undefined,
      limit: 500,
      continue: undefined,
    });
    assert.equal(client.watches[0]?.resourceVersion, "10");
    assert.equal(client.watches[0]?.metadataOnly, true);
  });

  for (const [what, fail] of [
    ["a 500", (client: FakeWatchClient) => client.failWatch(failure(500, "InternalError"))],
    ["a 403", (client: FakeWatchClient) => client.failWatch(failure(403, "Forbidden"))],
    [
      "a broken stream",
      (client: FakeWatchClient) => client.stream().send("ADDED", object("a", "1")).raw("{not json\n"),
    ],
  ] as const) {
    it(`falls back to a list at once on ${what} of the streaming attempt, as client-go does, and reports it`, async (t) => {
      const { client, take, calls, delays } = startWatch(t);
      fail(client);
      client.page([object("a", "2")], "10");
      client.stream();
      const events: string[] = [];
      while (events.at(-1) !== "initDone") events.push(...(await take()));
      assert.deepEqual(events.slice(-3), ["init", "initApply a@2", "initDone"]);
      assert.equal(client.lists.length, 1);
      assert.deepEqual(delays, [0], "no backoff before the list");
      assert.equal(calls.filter((c) => c.startsWith("retry")).length, 1);
    });
  }

  it("falls back to a list at once when a proxy ignores sendInitialEvents and the stream ends unsynced", async (t) => {
    const { client, take } = startWatch(t);
    client.stream().send("ADDED", object("a", "1")).end();
    client.page([object("a", "1")], "10");
    client.stream();
    assert.deepEqual(await take(5), ["init", "initApply a@1", "init", "initApply a@1", "initDone"]);
    assert.equal(client.lists.length, 1);
  });

  it("streams again at the next relist after a fallback that was not a refusal", async (t) => {
    const { client, take } = startWatch(t);
    client.failWatch(failure(500, "InternalError"));
    client.page([object("a", "1")], "10");
    client.stream().send("ERROR", { kind: "Status", code: 410, reason: "Expired" });
    await take(3);
    client.stream().bookmark("20", true);
    assert.deepEqual(await take(2), ["init", "initDone"]);
    assert.equal(client.watches[2]?.sendInitialEvents, true);
    assert.equal(client.lists.length, 1);
  });
});
