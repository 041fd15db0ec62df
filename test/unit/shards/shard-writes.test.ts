/**
 * A held shard's writes — its reconciles' client and its events — go through one fence: up at
 * once when the shard is lost, up after the recorded events were written when it is given up.
 * The events are what a reconcile of the shard records (`ctx.recorder`): before, a released
 * shard's reconciles still recorded events through the manager's unfenced recorder.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigMap } from "../../../src/api/index.ts";
import { Client, WriteFencedError } from "../../../src/client/index.ts";
import { ShardWrites } from "../../../src/shards/shard-writes.ts";
import { fakeConnection } from "../client/support.ts";
import { type SentRequest, stubUndici } from "../client/undici-stub.ts";
import { configMap, recordingLogger } from "../events/support.ts";

/** A client whose requests are answered in memory (each write echoes its body), and what it sent. */
function answering(t: Parameters<typeof stubUndici>[0]) {
  const sent = stubUndici(t, (request) => ({ status: 201, body: JSON.parse(request.body ?? "{}") }));
  const events = () => sent.filter((r: SentRequest) => r.path.includes("/events"));
  return { client: new Client(fakeConnection()), events };
}

function shardWrites(client: Client) {
  const logger = recordingLogger();
  return { writes: new ShardWrites(client, { reportingController: "widgets", logger }), logger };
}

const configMapBody = {
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "x", namespace: "shop" },
} as const;

describe("ShardWrites", () => {
  it("sends no event and no write of the shard from the moment it is lost", async (t) => {
    const { client, events } = answering(t);
    const { writes } = shardWrites(client);
    writes.recorder.normal(configMap("before"), "Synced", "Reconcile", "while held");
    await writes.recorder.flush();
    assert.equal(events().length, 1, "recorded while held: sent");

    writes.lose(new Error("shard 3 lost"));
    writes.recorder.warning(configMap("after"), "Failed", "Reconcile", "after the loss");
    await writes.recorder.flush();
    assert.equal(events().length, 1, "recorded after the loss: not sent");
    await assert.rejects(writes.fenced(client).create(ConfigMap, configMapBody), WriteFencedError);
    assert.equal(writes.lost, true);
    await writes.release(new Error("shard 3 released"));
  });

  it("writes the events a shard given up recorded before its fence goes up, then refuses every write", async (t) => {
    const { client, events } = answering(t);
    const { writes, logger } = shardWrites(client);
    const reconciles = writes.fenced(client);
    writes.recorder.normal(configMap("draining"), "Synced", "Reconcile", "during the drain");
    await writes.release(new Error("shard 3 released"));
    assert.equal(events().length, 1, "the drain's event was written before the release");
    assert.equal(writes.lost, false);

    writes.recorder.normal(configMap("late"), "Synced", "Reconcile", "after the release");
    await writes.recorder.flush();
    assert.equal(events().length, 1, "nothing recorded after the release is sent");
    await assert.rejects(reconciles.create(ConfigMap, configMapBody), WriteFencedError);
    assert.deepEqual(logger.lines, [], "no event write was given up");
  });
});
