import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConflictError, InvalidError } from "../../../src/client/index.ts";
import { FakeClock } from "../../../src/clock/index.ts";
import {
  defineConditionSet,
  type StatusOf,
  StatusSubresourceMissingError,
  updateStatus,
} from "../../../src/status/index.ts";
import { NOW_MS, stored } from "./support.ts";
import {
  conflict,
  FakeStatusClient,
  Gadget,
  type GadgetObject,
  gadget,
  notFound,
} from "./update-status-support.ts";

type Status = StatusOf<GadgetObject>;

const constant = (status: Status) => () => status;

describe("updateStatus: comparing", () => {
  it("sends nothing when the computed status equals the stored one, key order and undefined aside", async () => {
    const client = new FakeStatusClient();
    const obj = gadget("5", { count: 2, extra: { a: 1, b: 2 }, conditions: [stored("Ready", "True")] });
    const computed = {
      conditions: [stored("Ready", "True")],
      note: undefined,
      extra: { b: 2, a: 1 },
      count: 2,
    };
    assert.equal(await updateStatus(client, Gadget, obj, constant(computed)), "unchanged");
    assert.deepEqual(client.calls, []);
  });

  it("treats an absent status and an empty computed status as equal", async () => {
    const client = new FakeStatusClient();
    assert.equal(await updateStatus(client, Gadget, gadget("5"), constant({})), "unchanged");
    assert.deepEqual(client.calls, []);
  });

  it("sees a changed field inside a condition", async () => {
    const client = new FakeStatusClient();
    const obj = gadget("5", { conditions: [stored("Ready", "True")] });
    const computed = { conditions: [stored("Ready", "True", { message: "now with words" })] };
    assert.equal(await updateStatus(client, Gadget, obj, constant(computed)), "updated");
    assert.equal(client.of("patch").length, 1);
  });

  it("rejects a compute function that returns no object", async () => {
    const client = new FakeStatusClient();
    const bad = (() => undefined) as unknown as () => Status;
    await assert.rejects(updateStatus(client, Gadget, gadget("5"), bad), {
      name: "InvalidStatusUpdateError",
      code: "KL_INVALID_STATUS_UPDATE",
      message: /compute function returned undefined, not an object; return the whole status object/,
    });
    assert.deepEqual(client.calls, []);
  });

  it("rejects an object without a name", async () => {
    const obj = { ...gadget("5"), metadata: { namespace: "ns" } };
    await assert.rejects(updateStatus(new FakeStatusClient(), Gadget, obj, constant({})), {
      name: "InvalidStatusUpdateError",
      code: "KL_INVALID_STATUS_UPDATE",
      message: /the Gadget has no metadata\.name; pass the object as read/,
    });
  });
});

describe("updateStatus: merge patch", () => {
  it("patches /status with only what changed, nulls for dropped fields, and the resourceVersion", async () => {
    const client = new FakeStatusClient();
    const obj = gadget("5", { count: 2, note: "old", extra: { a: 1, b: 2 } });
    const result = await updateStatus(client, Gadget, obj, constant({ count: 3, extra: { a: 1 } }), {
      fieldManager: "gadgets",
    });
    assert.equal(result, "updated");
    assert.deepEqual(client.calls, [
      {
        verb: "patch",
        name: "g",
        body: { metadata: { resourceVersion: "5" }, status: { note: null, count: 3, extra: { b: null } } },
        opts: { type: "merge", namespace: "ns", fieldManager: "gadgets", signal: undefined },
      },
    ]);
  });

  it("sends the whole status when none is stored (a wiped status is written back)", async () => {
    const client = new FakeStatusClient();
    const conditions = [stored("Ready", "True")];
    await updateStatus(client, Gadget, gadget("7"), constant({ count: 1, conditions }));
    assert.deepEqual(client.of("patch")[0]?.body, {
      metadata: { resourceVersion: "7" },
      status: { count: 1, conditions },
    });
  });

  it("replaces a changed conditions list whole, as a merge patch must", async () => {
    const client = new FakeStatusClient();
    const obj = gadget("5", { conditions: [stored("Ready", "False"), stored("Available", "False")] });
    const conditions = [stored("Ready", "True"), stored("Available", "False")];
    await updateStatus(client, Gadget, obj, constant({ conditions }));
    assert.deepEqual(client.of("patch")[0]?.body, {
      metadata: { resourceVersion: "5" },
      status: { conditions },
    });
  });

  it("throws errors other than conflicts and not-found", async () => {
    const client = new FakeStatusClient();
    client.writes.push(
      new InvalidError({ code: 422, reason: "Invalid", message: "bad" }, { method: "PATCH", path: "/" }),
    );
    await assert.rejects(updateStatus(client, Gadget, gadget("5"), constant({ count: 1 })), InvalidError);
  });
});

describe("updateStatus: conflicts", () => {
  it("re-reads and recomputes from the fresh object, writing with its resourceVersion", async () => {
    const client = new FakeStatusClient();
    client.writes.push(conflict());
    client.reads.push({ ...gadget("8", { count: 10 }), spec: { size: 4 } });
    const seen: string[] = [];
    const result = await updateStatus(client, Gadget, gadget("5", { count: 0 }), (fresh) => {
      seen.push(`${fresh.metadata.resourceVersion}:${fresh.spec.size}`);
      return { count: fresh.spec.size };
    });
    assert.equal(result, "updated");
    assert.deepEqual(seen, ["5:1", "8:4"]);
    assert.deepEqual(
      client.calls.map((c) => [c.verb, c.body]),
      [
        ["patch", { metadata: { resourceVersion: "5" }, status: { count: 1 } }],
        ["get", undefined],
        ["patch", { metadata: { resourceVersion: "8" }, status: { count: 4 } }],
      ],
    );
    assert.deepEqual(client.of("get")[0]?.opts, { namespace: "ns", signal: undefined });
  });

  it("resolves unchanged when the fresh object already carries the computed status", async () => {
    const client = new FakeStatusClient();
    client.writes.push(conflict());
    client.reads.push(gadget("8", { count: 3 }));
    const result = await updateStatus(client, Gadget, gadget("5", { count: 1 }), constant({ count: 3 }));
    assert.equal(result, "unchanged");
    assert.deepEqual(
      client.calls.map((c) => c.verb),
      ["patch", "get"],
    );
  });

  it("gives up after maxAttempts writes and throws the last conflict", async () => {
    const client = new FakeStatusClient();
    for (let i = 0; i < 3; i++) {
      client.writes.push(conflict());
      client.reads.push(gadget(String(10 + i), { count: 0 }));
    }
    let computed = 0;
    const compute = () => ({ count: ++computed });
    await assert.rejects(
      updateStatus(client, Gadget, gadget("5"), compute, { maxAttempts: 3 }),
      ConflictError,
    );
    assert.equal(client.of("patch").length, 3);
    assert.equal(client.of("get").length, 2);
    assert.equal(computed, 3);
  });

  it("tries five writes by default", async () => {
    const client = new FakeStatusClient();
    for (let i = 0; i < 6; i++) {
      client.writes.push(conflict());
      client.reads.push(gadget(String(10 + i)));
    }
    await assert.rejects(updateStatus(client, Gadget, gadget("5"), constant({ count: 1 })), ConflictError);
    assert.equal(client.of("patch").length, 5);
  });
});

describe("updateStatus: gone", () => {
  it("resolves gone when the write finds no object", async () => {
    const client = new FakeStatusClient();
    client.writes.push(notFound());
    assert.equal(await updateStatus(client, Gadget, gadget("5"), constant({ count: 1 })), "gone");
  });

  it("resolves gone when the re-read after a conflict finds no object", async () => {
    const client = new FakeStatusClient();
    client.writes.push(conflict());
    let computed = 0;
    const result = await updateStatus(client, Gadget, gadget("5"), () => ({ count: ++computed }));
    assert.equal(result, "gone");
    assert.equal(computed, 1, "nothing is computed for an object that is gone");
  });
  it("throws StatusSubresourceMissingError when /status answers 404 but the object is there", async () => {
    const client = new FakeStatusClient();
    client.writes.push(notFound());
    client.objectReads.push(gadget("5"));
    await assert.rejects(updateStatus(client, Gadget, gadget("5"), constant({ count: 1 })), (err) => {
      assert.ok(err instanceof StatusSubresourceMissingError);
      assert.equal(err.code, "KL_STATUS_SUBRESOURCE");
      assert.match(
        err.message,
        /Gadget .*no status subresource.*Fix: add `subresources: \{ status: \{\} \}`/,
      );
      return true;
    });
    assert.deepEqual(
      client.calls.map((c) => c.verb),
      ["patch", "read"],
    );
  });
});

describe("updateStatus: server-side apply", () => {
  it("applies the status with the field manager, force and the resourceVersion", async () => {
    const client = new FakeStatusClient();
    const result = await updateStatus(
      client,
      Gadget,
      gadget("5", { count: 1, note: "x" }),
      constant({ count: 2 }),
      {
        method: "apply",
        fieldManager: "gadgets",
      },
    );
    assert.equal(result, "updated");
    assert.deepEqual(client.calls, [
      {
        verb: "apply",
        name: "g",
        body: {
          apiVersion: "example.com/v1",
          kind: "Gadget",
          metadata: { name: "g", namespace: "ns", resourceVersion: "5" },
          status: { count: 2 },
        },
        opts: { namespace: "ns", fieldManager: "gadgets", force: true, signal: undefined },
      },
    ]);
  });

  it("applies only the condition types it owns, comparing the whole status", async () => {
    const client = new FakeStatusClient();
    const foreign = stored("example.com/Backup", "True");
    const obj = gadget("5", { conditions: [stored("Ready", "False"), foreign] });
    const computed = { conditions: [stored("Ready", "True"), foreign] };
    const options = { method: "apply", conditionTypes: ["Ready", "Reconciling"] } as const;
    await updateStatus(client, Gadget, obj, constant(computed), options);
    assert.deepEqual(client.sentStatus("apply"), {
      conditions: [stored("Ready", "True")],
    });
    const settled = gadget("6", computed);
    assert.equal(await updateStatus(client, Gadget, settled, constant(computed), options), "unchanged");
    assert.equal(client.calls.length, 1);
  });

  it("recomputes after a conflict as the merge patch does", async () => {
    const client = new FakeStatusClient();
    client.writes.push(conflict());
    client.reads.push(gadget("9"));
    await updateStatus(client, Gadget, gadget("5"), (fresh) => ({ note: fresh.metadata.resourceVersion }), {
      method: "apply",
    });
    const bodies = client.of("apply").map((c) => (c.body as GadgetObject).metadata.resourceVersion);
    assert.deepEqual(bodies, ["5", "9"]);
  });
});

describe("updateStatus with a condition set", () => {
  const Gadgets = defineConditionSet({ summary: "Ready", dependents: { Available: "normal-true" } });
  const compute = (count: number) => (fresh: GadgetObject) => {
    const draft = Gadgets.begin(fresh, new FakeClock(NOW_MS));
    draft.set("Available", { status: "True", reason: "Up" });
    return { count, ...draft.finish().status };
  };

  it("writes once, then finds a settled object unchanged however often it is reconciled", async () => {
    const client = new FakeStatusClient();
    assert.equal(await updateStatus(client, Gadget, gadget("5"), compute(1)), "updated");
    const status = client.sentStatus("patch") as Status;
    const settled = gadget("6", structuredClone(status));
    for (let i = 0; i < 3; i++)
      assert.equal(await updateStatus(client, Gadget, settled, compute(1)), "unchanged");
    assert.equal(client.calls.length, 1);
    assert.equal(await updateStatus(client, Gadget, settled, compute(2)), "updated");
    assert.deepEqual(client.sentStatus("patch", 1), { count: 2 });
  });
});
