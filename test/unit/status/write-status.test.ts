import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConflictError } from "../../../src/client/index.ts";
import { FakeClock } from "../../../src/clock/index.ts";
import {
  ALL_NORMAL_REASON,
  type ConditionReport,
  defineConditionSet,
  type StatusDraft,
  writeStatus,
} from "../../../src/status/index.ts";
import { NOW, NOW_MS, stored } from "./support.ts";
import {
  conflict,
  countingReport,
  FakeRecorder,
  FakeStatusClient,
  Gadget,
  type GadgetObject,
  gadget,
  notFound,
} from "./update-status-support.ts";

const GadgetConditions = defineConditionSet({ summary: "Ready", dependents: { Available: "normal-true" } });

const up: ConditionReport = { status: "True", reason: "Up", message: "all up" };

/** A reconcile context over a scripted client, with recorded events and counts. */
function context() {
  const client = new FakeStatusClient();
  const recorder = new FakeRecorder();
  const { report, counted } = countingReport();
  const ctx = { client, recorder, report, clock: new FakeClock(NOW_MS) };
  return { ctx, client, events: recorder.events, counted };
}

/** Reports `Available` as given and `count` as the fresh object's size; keeps each fresh copy seen. */
function describer(available: ConditionReport = up) {
  const seen: string[] = [];
  const describe = (draft: StatusDraft<"Available">, fresh: GadgetObject) => {
    seen.push(fresh.metadata.resourceVersion ?? "");
    draft.set("Available", available);
    return { count: fresh.spec.size };
  };
  return { describe, seen };
}

describe("writeStatus", () => {
  it("writes the conditions and the other fields once, then nothing while they hold", async () => {
    const { ctx, client, events, counted } = context();
    const obj = gadget("5");
    const first = await writeStatus(ctx, Gadget, obj, GadgetConditions, describer().describe);
    assert.equal(first.result, "updated");
    assert.deepEqual(client.sentStatus("patch"), first.status);
    assert.equal(first.status.count, 1);
    assert.deepEqual(
      first.status.conditions?.map((c) => [c.type, c.status, c.reason, c.lastTransitionTime]),
      [
        ["Available", "True", "Up", NOW],
        ["Ready", "True", ALL_NORMAL_REASON, NOW],
      ],
      "stamped with the context's clock",
    );
    assert.equal(events.length, 1, "the summary's event tells the write");
    assert.deepEqual(counted, [
      ["Gadget", "Ready", "True"],
      ["Gadget", "Available", "True"],
    ]);

    const again = await writeStatus(
      ctx,
      Gadget,
      { ...obj, status: first.status },
      GadgetConditions,
      describer().describe,
    );
    assert.equal(again.result, "unchanged");
    assert.deepEqual(again.update.transitions, []);
    assert.equal(client.calls.length, 1, "no second request");
    assert.equal(events.length, 1, "no new event");
    assert.equal(counted.length, 2, "no new count");
  });

  it("records nothing when the status was not written: the object is gone", async () => {
    const { ctx, client, events, counted } = context();
    client.writes.push(notFound());
    const written = await writeStatus(ctx, Gadget, gadget("5"), GadgetConditions, describer().describe);
    assert.equal(written.result, "gone");
    assert.notDeepEqual(written.update.transitions, [], "the computation had transitions");
    assert.deepEqual(events, []);
    assert.deepEqual(counted, []);
  });

  it("records nothing when every attempt conflicted", async () => {
    const { ctx, client, events, counted } = context();
    client.writes.push(conflict(), conflict());
    client.reads.push(gadget("6"));
    const write = writeStatus(ctx, Gadget, gadget("5"), GadgetConditions, describer().describe, {
      maxAttempts: 2,
    });
    await assert.rejects(write, ConflictError);
    assert.deepEqual(events, []);
    assert.deepEqual(counted, []);
  });

  it("after a conflict, describes the fresh copy again and records the transitions of that computation", async () => {
    const { ctx, client, events, counted } = context();
    client.writes.push(conflict());
    client.reads.push(gadget("8", { conditions: [stored("Ready", "False"), stored("Available", "False")] }));
    const { describe, seen } = describer();
    const written = await writeStatus(ctx, Gadget, gadget("5"), GadgetConditions, describe);
    assert.equal(written.result, "updated");
    assert.deepEqual(seen, ["5", "8"]);
    assert.deepEqual(client.sentStatus("patch", 1), written.status);
    assert.deepEqual(
      events.map((e) => e[4]),
      [`Ready: False → True (${ALL_NORMAL_REASON})`],
      "from the stored False of the fresh copy, not from the first copy's Absent; the summary's event alone",
    );
    assert.deepEqual(counted, [
      ["Gadget", "Ready", "True"],
      ["Gadget", "Available", "True"],
    ]);
  });

  it("tells the transitions through options.events and options.action, counting every one", async () => {
    const { ctx, events, counted } = context();
    const down: ConditionReport = { status: "False", reason: "Down", message: "" };
    await writeStatus(ctx, Gadget, gadget("5"), GadgetConditions, describer(down).describe, {
      action: "Observe",
      events: (e) => (e.condition === "Ready" ? { ...e, note: "summary only" } : undefined),
    });
    assert.deepEqual(events, [["Warning", "Gadget", "Down", "Observe", "summary only"]]);
    assert.deepEqual(
      counted.map((c) => c[1]),
      ["Ready", "Available"],
    );
  });

  it("applies only the set's conditions by default, leaving other controllers' conditions theirs", async () => {
    const { ctx, client } = context();
    const foreign = stored("example.com/Foreign", "True");
    const obj = gadget("5", { conditions: [foreign] });
    const written = await writeStatus(ctx, Gadget, obj, GadgetConditions, describer().describe, {
      method: "apply",
    });
    assert.deepEqual(written.status.conditions?.[0], foreign, "passed through in the computed status");
    const applied = client.sentStatus("apply") as { conditions: { type: string }[] };
    assert.deepEqual(
      applied.conditions.map((c) => c.type),
      ["Available", "Ready"],
    );
  });
});
