import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../../src/api/index.ts";
import { shardSelector } from "../../../src/sharding/index.ts";
import { lowHalf, uidIn } from "../sharding/support.ts";
import { startWatch } from "./harness.ts";
import { object } from "./support.ts";

const shard = { key: "uid", ranges: [lowHalf] } as const;

/** `object(name, rv)` with a uid in the low half, or outside it. */
function objectWithUid(name: string, resourceVersion: string, inLow: boolean): KubeObject {
  const obj = object(name, resourceVersion);
  obj.metadata.uid = uidIn([lowHalf], inLow);
  return obj;
}

describe("watch: one shard", () => {
  it("asks the server for the shard and drops what it sends from outside, reporting each", async (t) => {
    const { client, take, calls } = startWatch(t, { shard });
    client
      .stream()
      .send("ADDED", objectWithUid("mine", "1", true))
      .send("ADDED", objectWithUid("other", "2", false))
      .bookmark("3", true)
      .send("MODIFIED", objectWithUid("other", "4", false))
      .send("DELETED", objectWithUid("other", "5", false))
      .send("MODIFIED", objectWithUid("mine", "6", true));
    assert.deepEqual(await take(4), ["init", "initApply mine@1", "initDone", "apply mine@6"]);
    assert.equal(client.watches[0]?.shardSelector, shardSelector("uid", [lowHalf]));
    assert.equal(calls.filter((c) => c === "outside-shard").length, 3);
  });

  it("lists the shard when it lists the initial state, and filters the pages too", async (t) => {
    const { client, take, calls } = startWatch(t, { shard, initialState: "list" });
    client.page([objectWithUid("mine", "1", true), objectWithUid("other", "2", false)], "3");
    client.stream();
    assert.deepEqual(await take(3), ["init", "initApply mine@1", "initDone"]);
    assert.equal(client.lists[0]?.shardSelector, shardSelector("uid", [lowHalf]));
    assert.deepEqual(
      calls.filter((c) => c === "outside-shard"),
      ["outside-shard"],
    );
  });

  it("asks for no shard and drops nothing without one", async (t) => {
    const { client, take, calls } = startWatch(t);
    client
      .stream()
      .send("ADDED", objectWithUid("other", "1", false))
      .bookmark("2", true);
    assert.deepEqual(await take(3), ["init", "initApply other@1", "initDone"]);
    assert.equal(client.watches[0]?.shardSelector, undefined);
    assert.ok(!calls.includes("outside-shard"));
  });
});
