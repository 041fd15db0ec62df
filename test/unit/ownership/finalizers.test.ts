import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Action } from "../../../src/controller/index.ts";
import {
  FinalizerCleanupError,
  type FinalizerEvent,
  FinalizerNameError,
  withFinalizer,
} from "../../../src/ownership/index.ts";
import { Cluster, FakeFinalizerClient, fakeRecorder, Widget, type WidgetObject, widget } from "./support.ts";

const F = "widgets.example.com/cleanup";
const DELETED_AT = "2026-01-01T00:00:00Z";

/** A handler that logs each event it receives (and the finalizers the object carried) and answers `answer`. */
function recordingHandler(log: string[], answer?: Action, fail?: Error) {
  const seen: FinalizerEvent<WidgetObject>[] = [];
  const handle = async (event: FinalizerEvent<WidgetObject>) => {
    seen.push(event);
    log.push(`${event.type}[${(event.object.metadata.finalizers ?? []).join(",")}]`);
    if (fail) throw fail;
    return answer;
  };
  return { handle, seen };
}

describe("withFinalizer: adding the finalizer", () => {
  it("adds it with a resourceVersion-guarded patch before apply runs, and hands apply the patched object", async () => {
    const log: string[] = [];
    const stored = widget({ resourceVersion: "8", finalizers: [F] });
    const client = new FakeFinalizerClient(log, () => stored);
    const { handle, seen } = recordingHandler(log, Action.requeueAfter(5000));

    const result = await withFinalizer(client, Widget, widget(), F, handle);

    assert.deepEqual(client.calls, [
      {
        type: Widget,
        name: "w",
        patch: [
          { op: "test", path: "/metadata/resourceVersion", value: "7" },
          { op: "add", path: "/metadata/finalizers", value: [F] },
        ],
        opts: { type: "json", namespace: "ns" },
      },
    ]);
    assert.deepEqual(log, ["patch", `apply[${F}]`], "the finalizer is stored before the handler runs");
    assert.equal(seen[0]?.object, stored, "apply sees the object the server returned");
    assert.equal(result?.requeueAfterMs, 5000, "apply's Action is returned");
  });

  it("appends to existing finalizers, guarded by a test of the whole list", async () => {
    const client = new FakeFinalizerClient();
    const { handle } = recordingHandler([]);
    await withFinalizer(client, Widget, widget({ finalizers: ["other.io/x", "third.io/y"] }), F, handle);
    assert.deepEqual(client.calls[0]?.patch, [
      { op: "test", path: "/metadata/finalizers", value: ["other.io/x", "third.io/y"] },
      { op: "add", path: "/metadata/finalizers/-", value: F },
    ]);
  });

  it("runs no side effect when storing the finalizer fails", async () => {
    const log: string[] = [];
    const client = new FakeFinalizerClient(log);
    client.fail = new Error("conflict: test operation failed");
    const { handle } = recordingHandler(log);
    await assert.rejects(withFinalizer(client, Widget, widget(), F, handle), /test operation failed/);
    assert.deepEqual(log, ["patch"], "apply never ran");
  });

  it("does not patch when the finalizer is already there, and returns apply's Action", async () => {
    const client = new FakeFinalizerClient();
    const object = widget({ finalizers: ["other.io/x", F] });
    const { handle, seen } = recordingHandler([], Action.requeueAfter(10));
    const result = await withFinalizer(client, Widget, object, F, handle);
    assert.equal(client.calls.length, 0);
    assert.deepEqual(seen, [{ type: "apply", object }]);
    assert.equal(result?.requeueAfterMs, 10);
  });

  it("patches cluster-scoped objects without a namespace", async () => {
    const client = new FakeFinalizerClient();
    const object = {
      apiVersion: Cluster.apiVersion,
      kind: Cluster.kind,
      metadata: { name: "c", resourceVersion: "3" },
    };
    await withFinalizer(client, Cluster, object, F, async () => undefined);
    assert.deepEqual(client.calls[0]?.opts, { type: "json", namespace: undefined });
    assert.equal(client.calls[0]?.name, "c");
  });
});

describe("withFinalizer: cleanup", () => {
  it("runs cleanup when deletionTimestamp is set, then removes exactly its own entry, guarded by a test", async () => {
    const log: string[] = [];
    const client = new FakeFinalizerClient(log);
    const object = widget({ deletionTimestamp: DELETED_AT, finalizers: ["other.io/x", F, "third.io/y"] });
    const { handle, seen } = recordingHandler(log, Action.requeueAfter(1));

    const result = await withFinalizer(client, Widget, object, F, handle);

    assert.deepEqual(seen, [{ type: "cleanup", object }]);
    assert.deepEqual(log, [`cleanup[other.io/x,${F},third.io/y]`, "patch"], "removed only after cleanup");
    assert.deepEqual(client.calls, [
      {
        type: Widget,
        name: "w",
        patch: [
          { op: "test", path: "/metadata/finalizers/1", value: F },
          { op: "remove", path: "/metadata/finalizers/1" },
        ],
        opts: { type: "json", namespace: "ns" },
      },
    ]);
    assert.equal(result, undefined, "nothing to requeue once the finalizer is gone");
  });

  it("keeps the finalizer when cleanup fails, records CleanupFailed and throws FinalizerCleanupError", async () => {
    const client = new FakeFinalizerClient();
    const { recorder, events } = fakeRecorder();
    const cause = new Error("bucket unreachable");
    const object = widget({ deletionTimestamp: DELETED_AT, finalizers: [F] });
    const { handle } = recordingHandler([], undefined, cause);

    const err = await withFinalizer(client, Widget, object, F, handle, { recorder }).then(
      () => assert.fail("cleanup failure must propagate"),
      (e: unknown) => e,
    );

    assert.ok(err instanceof FinalizerCleanupError);
    assert.equal(err.code, "KL_FINALIZER_CLEANUP");
    assert.equal(err.cause, cause);
    assert.match(err.message, /widgets\.example\.com\/cleanup on Widget w failed: bucket unreachable/);
    assert.equal(client.calls.length, 0, "the finalizer stays");
    assert.deepEqual(events, [
      {
        type: "Warning",
        regarding: object,
        reason: "CleanupFailed",
        action: "Finalize",
        note: `cleanup for ${F} failed: bucket unreachable`,
        related: undefined,
      },
    ]);
  });

  it("fails safely without a recorder, and reports non-Error throws", async () => {
    const client = new FakeFinalizerClient();
    const object = widget({ deletionTimestamp: DELETED_AT, finalizers: [F] });
    await assert.rejects(
      withFinalizer(client, Widget, object, F, async () => {
        throw "plain string";
      }),
      (e: unknown) => e instanceof FinalizerCleanupError && /failed: plain string/.test(e.message),
    );
    assert.equal(client.calls.length, 0);
  });

  it("does nothing for an object being deleted without its finalizer", async () => {
    const client = new FakeFinalizerClient();
    const { handle, seen } = recordingHandler([]);
    const object = widget({ deletionTimestamp: DELETED_AT, finalizers: ["other.io/x"] });
    assert.equal(await withFinalizer(client, Widget, object, F, handle), undefined);
    assert.deepEqual(seen, []);
    assert.equal(client.calls.length, 0);
  });

  it("can run cleanup again on a stale copy; the test guard then refuses to remove another finalizer", async () => {
    // The first pass removed F at index 0; a retry with the old copy still says index 0.
    const stale = widget({ deletionTimestamp: DELETED_AT, finalizers: [F, "other.io/x"] });
    const client = new FakeFinalizerClient();
    let cleanups = 0;
    const cleanup = async () => {
      cleanups++;
      return undefined;
    };
    await withFinalizer(client, Widget, stale, F, cleanup);
    await withFinalizer(client, Widget, stale, F, cleanup);
    assert.equal(cleanups, 2);
    for (const call of client.calls) {
      assert.deepEqual((call.patch as object[])[0], { op: "test", path: "/metadata/finalizers/0", value: F });
    }
  });
});

describe("withFinalizer: finalizer names", () => {
  const rejected = [
    "cleanup",
    "/cleanup",
    "example.com/",
    "Example.com/cleanup",
    "example.com/a/b",
    "example.com/cleanup-",
    "example.com/-cleanup",
    "example..com/cleanup",
    "-example.com/cleanup",
    "example.com/clean up",
    `example.com/${"x".repeat(64)}`,
    `${"a".repeat(254)}/cleanup`,
  ];
  for (const name of rejected) {
    it(`rejects ${JSON.stringify(name.length > 40 ? `${name.slice(0, 20)}…` : name)} before any call`, async () => {
      const client = new FakeFinalizerClient();
      const { handle, seen } = recordingHandler([]);
      const err = await withFinalizer(client, Widget, widget(), name, handle).then(
        () => assert.fail("must reject"),
        (e: unknown) => e,
      );
      assert.ok(err instanceof FinalizerNameError);
      assert.equal(err.code, "KL_FINALIZER_NAME");
      assert.ok(err.message.includes(name), "the message names the finalizer");
      assert.equal(client.calls.length, 0);
      assert.equal(seen.length, 0);
    });
  }

  it("also rejects a bad name on an object being deleted, without running cleanup", async () => {
    const { handle, seen } = recordingHandler([]);
    const object = widget({ deletionTimestamp: DELETED_AT, finalizers: ["cleanup"] });
    await assert.rejects(
      withFinalizer(new FakeFinalizerClient(), Widget, object, "cleanup", handle),
      FinalizerNameError,
    );
    assert.equal(seen.length, 0);
  });

  for (const name of [
    "widgets.example.com/cleanup",
    "foo/x",
    "a-b.c-d.io/Clean_Up.v2",
    `example.com/${"x".repeat(63)}`,
  ]) {
    it(`accepts ${JSON.stringify(name.length > 40 ? `${name.slice(0, 20)}…` : name)}`, async () => {
      const client = new FakeFinalizerClient();
      await withFinalizer(client, Widget, widget(), name, async () => undefined);
      assert.equal(client.calls.length, 1);
    });
  }
});
