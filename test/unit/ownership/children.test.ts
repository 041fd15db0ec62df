import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigMap, type ConfigMapObject } from "../../../src/api/index.ts";
import { ConflictError, InvalidError } from "../../../src/client/index.ts";
import { hasCode } from "../../../src/errors/index.ts";
import {
  AlreadyOwnedError,
  ChildConflictError,
  ChildOutOfScopeError,
  ChildReplacedError,
  controllerReference,
  ensureChild,
} from "../../../src/ownership/index.ts";
import { apiError, childContext, configMap, entry, owning, widget, writtenFrom } from "./support.ts";

const OWNER = widget();
const desired = (message = "hi"): ConfigMapObject => configMap("w-config", { message });

/**
 * The child as the cache holds it after this controller wrote `desired()` (its fingerprint) and
 * its data became `message`, with server-set fields.
 */
function stored(
  message: string,
  managedFields = [entry("widgets", "2026-01-01T00:00:05Z", "Apply")],
  extra: Partial<ConfigMapObject["metadata"]> = {},
): ConfigMapObject {
  return configMap(
    "w-config",
    { message, addedByOthers: "x" },
    {
      uid: "uid-c",
      resourceVersion: "42",
      creationTimestamp: "2026-01-01T00:00:05Z",
      ownerReferences: [controllerReference(OWNER)],
      managedFields,
      labels: { "added-by": "someone-else" },
      annotations: writtenFrom(OWNER, desired()),
      ...extra,
    },
  );
}

describe("ensureChild", () => {
  it("creates a missing child with a create (never an apply), with the controller reference set", async () => {
    const { ctx, applies, creates, events, drifts, informers } = childContext();
    assert.equal(await ensureChild(ctx, OWNER, ConfigMap, desired()), "created");
    assert.deepEqual(informers, [{ type: ConfigMap }]);
    assert.equal(applies.length, 0);
    assert.equal(creates.length, 1);
    assert.deepEqual(creates[0]?.metadata.ownerReferences, [controllerReference(OWNER)]);
    assert.deepEqual((creates[0] as ConfigMapObject | undefined)?.data, { message: "hi" });
    assert.deepEqual(events, [], "a first creation is not drift");
    assert.deepEqual(drifts, []);
  });

  it("writes nothing for a settled child, whatever the server and other managers added", async () => {
    const { ctx, applies, events } = childContext({ stored: [stored("hi")] });
    for (let i = 0; i < 3; i++)
      assert.equal(await ensureChild(ctx, OWNER, ConfigMap, desired()), "unchanged");
    assert.equal(applies.length, 0);
    assert.equal(events.length, 0);
  });

  it("treats owner references as a set: another owner's reference added to a settled child is no difference", async () => {
    const extra = { apiVersion: "v1", kind: "ConfigMap", name: "bundle", uid: "uid-bundle" };
    const child = stored(
      "hi",
      [entry("widgets", "2026-01-01T00:00:05Z", "Apply"), entry("bundler", "2026-01-01T00:00:09Z")],
      {
        ownerReferences: [extra, controllerReference(OWNER)],
      },
    );
    const { ctx, applies, events } = childContext({ stored: [child] });
    assert.equal(await ensureChild(ctx, OWNER, ConfigMap, desired()), "unchanged");
    assert.equal(applies.length, 0);
    assert.equal(events.length, 0);
  });

  it("repairs a child someone else changed after this controller, and reports who", async () => {
    const tampered = stored("tampered", [
      entry("widgets", "2026-01-01T00:00:05Z", "Apply"),
      entry("tamperer", "2026-01-01T00:00:09Z", "Update"),
    ]);
    const onServer = stored("tampered", [
      owning("widgets", "2026-01-01T00:00:05Z", { "f:metadata": { "f:ownerReferences": {} } }, "Apply"),
      owning("tamperer", "2026-01-01T00:00:09Z", { "f:data": { "f:message": {} } }),
    ]);
    const { ctx, applies, gets, events, drifts } = childContext({ stored: [tampered], server: [onServer] });
    assert.equal(await ensureChild(ctx, OWNER, ConfigMap, desired()), "updated");
    assert.equal(applies.length, 1);
    assert.deepEqual((applies[0]?.obj as ConfigMapObject | undefined)?.data, { message: "hi" });
    assert.deepEqual(gets, ["ns/w-config"], "the field sets are read once");
    assert.equal(events.length, 1);
    assert.equal(events[0]?.reason, "DriftRepaired");
    assert.equal(events[0]?.regarding, OWNER);
    assert.equal(events[0]?.related, tampered);
    assert.match(events[0]?.note ?? "", /modified by tamperer \(Update at 2026-01-01T00:00:09Z\)/);
    assert.deepEqual(drifts, [["ConfigMap", "tamperer"]]);
  });

  it("reports a change whose writer took every field from this controller (its own entry is gone)", async () => {
    const { ctx, drifts } = childContext({
      stored: [stored("tampered", [entry("kubectl-edit", "2026-01-01T00:00:01Z")])],
      server: [
        stored("tampered", [
          owning("kubectl-edit", "2026-01-01T00:00:01Z", { "f:data": { "f:message": {} } }),
        ]),
      ],
    });
    assert.equal(await ensureChild(ctx, OWNER, ConfigMap, desired()), "updated");
    assert.deepEqual(drifts, [["ConfigMap", "kubectl-edit"]]);
  });

  it("blames the writer of a desired field, not a more recent one that only added a label", async () => {
    const fields = [
      owning("widgets", "2026-01-01T00:00:05Z", { "f:metadata": { "f:ownerReferences": {} } }, "Apply"),
      owning("tamperer", "2026-01-01T00:00:07Z", { "f:data": { "f:message": {} } }),
      owning("labeler", "2026-01-01T00:00:09Z", { "f:metadata": { "f:labels": { ".": {}, "f:team": {} } } }),
    ];
    const { ctx, drifts } = childContext({
      stored: [
        stored(
          "tampered",
          fields.map((f) => entry(f.manager, f.time, f.operation)),
        ),
      ],
      server: [stored("tampered", fields)],
    });
    assert.equal(await ensureChild(ctx, OWNER, ConfigMap, desired()), "updated");
    assert.deepEqual(drifts, [["ConfigMap", "tamperer"]]);
  });

  it("does not report an update caused by the owner's spec when a newer foreign writer touched no desired field", async () => {
    const fields = [
      owning("widgets", "2026-01-01T00:00:05Z", { "f:data": { "f:message": {} } }, "Apply"),
      owning("labeler", "2026-01-01T00:00:09Z", { "f:metadata": { "f:labels": { "f:team": {} } } }),
    ];
    const { ctx, applies, events, drifts } = childContext({
      stored: [
        stored(
          "old message",
          fields.map((f) => entry(f.manager, f.time, f.operation)),
        ),
      ],
      server: [stored("old message", fields)],
    });
    assert.equal(await ensureChild(ctx, OWNER, ConfigMap, desired("new message")), "updated");
    assert.equal(applies.length, 1);
    assert.deepEqual(events, []);
    assert.deepEqual(drifts, []);
  });

  it("does not report (nor read) an update when foreign writers are older than its own write", async () => {
    const child = stored("old message", [
      entry("labeler", "2026-01-01T00:00:01Z"),
      entry("widgets", "2026-01-01T00:00:05Z", "Apply"),
    ]);
    const { ctx, applies, gets, events, drifts } = childContext({ stored: [child] });
    assert.equal(await ensureChild(ctx, OWNER, ConfigMap, desired("new message")), "updated");
    assert.equal(applies.length, 1);
    assert.deepEqual(gets, []);
    assert.deepEqual(events, []);
    assert.deepEqual(drifts, []);
  });

  it("does not report an update when only this controller and status writers touched the child", async () => {
    const child = stored("old", [
      entry("widgets", "2026-01-01T00:00:05Z", "Apply"),
      entry("kube-controller-manager", "2026-01-01T00:00:09Z", "Update", "status"),
    ]);
    const { ctx, gets, drifts } = childContext({ stored: [child] });
    assert.equal(await ensureChild(ctx, OWNER, ConfigMap, desired("new")), "updated");
    assert.deepEqual(gets, []);
    assert.deepEqual(drifts, []);
  });

  it("still repairs, and falls back to the last foreign writer, when the field sets cannot be read", async () => {
    const { ctx, applies, drifts } = childContext({
      stored: [stored("tampered", [entry("tamperer", "2026-01-01T00:00:09Z")])],
      server: [],
    });
    assert.equal(await ensureChild(ctx, OWNER, ConfigMap, desired()), "updated");
    assert.equal(applies.length, 1);
    assert.deepEqual(drifts, [["ConfigMap", "tamperer"]]);
  });

  it("reports a recreated child that this owner controlled as deleted, naming its last foreign writer", async () => {
    const last = stored("hi", [
      entry("widgets", "2026-01-01T00:00:05Z", "Apply"),
      entry("helm", "2026-01-01T00:00:07Z"),
    ]);
    const { ctx, events, drifts } = childContext({ tombstones: [last] });
    assert.equal(await ensureChild(ctx, OWNER, ConfigMap, desired()), "created");
    assert.match(events[0]?.note ?? "", /was deleted .*last changed by helm/);
    assert.deepEqual(drifts, [["ConfigMap", "helm"]]);
  });

  it("reports a deletion as manager unknown when no foreign writer is known", async () => {
    const { ctx, drifts } = childContext({ tombstones: [stored("hi")] });
    await ensureChild(ctx, OWNER, ConfigMap, desired());
    assert.deepEqual(drifts, [["ConfigMap", "unknown"]]);
  });

  it("does not report a child whose last state belonged to an earlier owner of the same name", async () => {
    // The owner was deleted (garbage collection removed the child) and created again: a new uid.
    const previous = stored("hi", undefined, {
      ownerReferences: [controllerReference(widget({ uid: "uid-previous" }))],
    });
    const { ctx, creates, events, drifts } = childContext({ tombstones: [previous] });
    assert.equal(await ensureChild(ctx, OWNER, ConfigMap, desired()), "created");
    assert.equal(creates.length, 1);
    assert.deepEqual(events, []);
    assert.deepEqual(drifts, []);
  });

  it("refuses to adopt a child controlled by another object, without writing", async () => {
    const foreign = stored("theirs", undefined, {
      ownerReferences: [controllerReference(widget({ name: "other", uid: "uid-other" }))],
    });
    const { ctx, applies, events } = childContext({ stored: [foreign] });
    await assert.rejects(
      ensureChild(ctx, OWNER, ConfigMap, desired()),
      (err: unknown) =>
        err instanceof AlreadyOwnedError &&
        err.controller.uid === "uid-other" &&
        /ns\/w-config/.test(err.message),
    );
    assert.equal(applies.length, 0);
    assert.equal(events.length, 0);
  });

  it("refuses an object of the child's name that no object controls (a user's), without writing", async () => {
    const users = stored("user data", [entry("kubectl-create", "2026-01-01T00:00:01Z")], {
      ownerReferences: undefined,
    });
    const { ctx, applies, creates, patches, events, drifts } = childContext({ stored: [users] });
    await assert.rejects(
      ensureChild(ctx, OWNER, ConfigMap, desired()),
      (err: unknown) =>
        err instanceof ChildConflictError &&
        !(err instanceof AlreadyOwnedError) &&
        hasCode(err, "KL_CHILD_CONFLICT") &&
        err.controller === undefined &&
        /ConfigMap ns\/w-config already exists and no object controls it/.test(err.message) &&
        /Delete or rename it, or give the owner another name/.test(err.message),
    );
    assert.deepEqual([applies.length, creates.length, patches.length], [0, 0, 0]);
    assert.deepEqual([events, drifts], [[], []]);
  });

  it("refuses a user's object the cache has not seen: the create fails on it, and it is read, not applied", async () => {
    const users = configMap("w-config", { message: "user data" }, { uid: "uid-user", resourceVersion: "3" });
    const { ctx, applies, creates, gets } = childContext({ server: [users] });
    await assert.rejects(ensureChild(ctx, OWNER, ConfigMap, desired()), ChildConflictError);
    assert.equal(creates.length, 1);
    assert.deepEqual(gets, ["ns/w-config"]);
    assert.equal(applies.length, 0, "nothing is applied to an object it does not control");
  });

  it("converges a child of its own the cache has not seen yet, as read after the failed create", async () => {
    const { ctx, applies } = childContext({ server: [stored("hi")] });
    assert.equal(await ensureChild(ctx, OWNER, ConfigMap, desired()), "unchanged");
    assert.equal(applies.length, 0);
  });

  it("adopts an uncontrolled object only with adopt: true, applying to that very object (its uid)", async () => {
    const orphan = stored("hi", [entry("kubectl-create", "2026-01-01T00:00:01Z")], {
      ownerReferences: undefined,
    });
    const { ctx, applies, events, drifts } = childContext({ stored: [orphan] });
    assert.equal(await ensureChild(ctx, OWNER, ConfigMap, desired(), { adopt: true }), "updated");
    assert.deepEqual(applies[0]?.obj.metadata.ownerReferences, [controllerReference(OWNER)]);
    assert.equal(applies[0]?.obj.metadata.uid, "uid-c");
    assert.deepEqual([events, drifts], [[], []], "an adoption is no drift");
  });

  it("never adopts an object another object controls, even with adopt: true", async () => {
    const foreign = stored("theirs", undefined, {
      ownerReferences: [controllerReference(widget({ name: "other", uid: "uid-other" }))],
    });
    const { ctx, applies } = childContext({ stored: [foreign] });
    await assert.rejects(ensureChild(ctx, OWNER, ConfigMap, desired(), { adopt: true }), AlreadyOwnedError);
    assert.equal(applies.length, 0);
  });

  it("applies to the cached child's uid, and reports a child replaced meanwhile as ChildReplacedError", async () => {
    const immutable = apiError(InvalidError, 422, "Invalid", [
      { field: "metadata.uid", message: "immutable" },
    ]);
    for (const failure of [immutable, apiError(ConflictError, 409, "Conflict")]) {
      const { ctx, applies } = childContext({ stored: [stored("old")], applyError: failure });
      await assert.rejects(
        ensureChild(ctx, OWNER, ConfigMap, desired()),
        (err: unknown) => err instanceof ChildReplacedError && hasCode(err, "KL_CHILD_REPLACED"),
      );
      assert.equal(applies[0]?.obj.metadata.uid, "uid-c");
    }
  });

  it("reads children through the informer of the scope given to owns()", async () => {
    const scope = { namespace: "ns", labelSelector: "app=widgets" };
    const { ctx, informers } = childContext({ owned: [{ type: ConfigMap, scope }] });
    const want = desired();
    want.metadata.labels = { app: "widgets" };
    await ensureChild(ctx, OWNER, ConfigMap, want);
    assert.deepEqual(informers, [{ type: ConfigMap, scope }]);
  });

  it("rejects a child outside every scope owns() declared for its kind", async () => {
    const owned = [{ type: ConfigMap, scope: { namespace: "ns", labelSelector: "app=widgets" } }];
    const { ctx, creates, informers } = childContext({ owned });
    await assert.rejects(
      ensureChild(ctx, OWNER, ConfigMap, desired()),
      (err: unknown) =>
        err instanceof ChildOutOfScopeError &&
        /labels app=widgets/.test(err.message) &&
        /owns\(\)/.test(err.message),
    );
    assert.deepEqual([creates.length, informers.length], [0, 0]);
  });

  describe("a kind its controller does not own (a forgotten .owns())", () => {
    const warnings = () => {
      const lines: string[] = [];
      return { lines, log: { warn: (_fields: object, message: string) => void lines.push(message) } };
    };

    it("still converges the child, and warns once per controller and kind, naming .owns()", async () => {
      const { lines, log } = warnings();
      const { ctx, creates } = childContext({ owned: [] });
      const logged = { ...ctx, log: log as never };
      await ensureChild(logged, OWNER, ConfigMap, desired());
      await ensureChild(logged, OWNER, ConfigMap, desired());
      assert.equal(creates.length, 2);
      assert.equal(lines.length, 1);
      assert.match(lines[0] ?? "", /ensureChild of a ConfigMap in a controller that does not own ConfigMap/);
      assert.match(
        lines[0] ?? "",
        /Add \.owns\(ConfigMap\) to the controller, then rerun `kubeloop generate`/,
      );
      const other = childContext({ owned: [] });
      await ensureChild({ ...other.ctx, log: log as never }, OWNER, ConfigMap, desired());
      assert.equal(lines.length, 2, "another controller is warned too");
    });

    it("says nothing for an owned kind, or a context that declares no owned kinds at all", async () => {
      const { lines, log } = warnings();
      const owned = childContext({ owned: [{ type: ConfigMap }] });
      await ensureChild({ ...owned.ctx, log: log as never }, OWNER, ConfigMap, desired());
      const undeclared = childContext();
      await ensureChild({ ...undeclared.ctx, log: log as never }, OWNER, ConfigMap, desired());
      assert.deepEqual(lines, []);
    });
  });

  it("does not touch the reconcile's logger (built on first use) for a kind its controller owns", async () => {
    const { ctx } = childContext({ owned: [{ type: ConfigMap }] });
    let reads = 0;
    const counted = Object.defineProperty({ ...ctx }, "log", {
      get: () => {
        reads++;
        return undefined;
      },
    });
    await ensureChild(counted, OWNER, ConfigMap, desired());
    assert.equal(reads, 0);
  });

  describe("an exclusive child (the default)", () => {
    const T_OURS = "2026-01-01T00:00:05Z";
    const T_THEIRS = "2026-01-01T00:00:09Z";
    /** The settled child, with `addedByOthers` owned by `manager` and a label by `labeler`. */
    const withAddition = (manager: string) => {
      const fields = [
        owning("widgets", T_OURS, { "f:data": { "f:message": {} } }, "Apply"),
        owning(manager, T_THEIRS, { "f:data": { "f:addedByOthers": {} } }),
        owning("labeler", T_THEIRS, { "f:metadata": { "f:labels": { "f:added-by": {} } } }),
      ];
      const summary = fields.map((f) => entry(f.manager, f.time, f.operation));
      return { cached: stored("hi", summary), live: stored("hi", fields) };
    };
    /** The field sets of `child` once `manager`, which claimed only what was removed, is gone. */
    const withoutWriter = (child: ConfigMapObject, manager: string) =>
      child.metadata.managedFields?.filter((e) => e.manager !== manager);

    it("removes a field another manager added, by a JSON patch preconditioned on the version read that drops its claim, and reports the writer", async () => {
      const { cached, live } = withAddition("kubectl-patch");
      const { ctx, applies, patches, gets, events, drifts } = childContext({
        stored: [cached],
        server: [live],
      });
      assert.equal(await ensureChild(ctx, OWNER, ConfigMap, desired()), "updated");
      assert.deepEqual(gets, ["ns/w-config"]);
      assert.deepEqual(patches, [
        {
          key: "ns/w-config",
          patch: [
            { op: "replace", path: "/metadata/resourceVersion", value: "42" },
            { op: "remove", path: "/data/addedByOthers" },
            { op: "replace", path: "/metadata/managedFields", value: withoutWriter(live, "kubectl-patch") },
          ],
        },
      ]);
      assert.equal(applies.length, 0, "the desired fields already match");
      assert.deepEqual(drifts, [["ConfigMap", "kubectl-patch"]]);
      assert.match(events[0]?.note ?? "", /^ConfigMap w-config was modified by kubectl-patch \(Update at /);
    });

    it("leaves co-writers' fields and labels alone, and reads each version of the child once", async () => {
      const { cached, live } = withAddition("kube-controller-manager");
      const { ctx, patches, gets, drifts } = childContext({ stored: [cached], server: [live] });
      for (let i = 0; i < 3; i++)
        assert.equal(await ensureChild(ctx, OWNER, ConfigMap, desired()), "unchanged");
      assert.deepEqual(gets, ["ns/w-config"], "read once for the labeler, then remembered");
      assert.deepEqual([patches, drifts], [[], []]);
    });

    it("reads a child with a generation again only when its generation moves, not on status updates", async () => {
      const { cached, live } = withAddition("kube-controller-manager");
      cached.metadata.generation = 3;
      live.metadata.generation = 3;
      const { ctx, gets } = childContext({ stored: [cached], server: [live] });
      await ensureChild(ctx, OWNER, ConfigMap, desired());
      cached.metadata.resourceVersion = "43"; // a status update
      await ensureChild(ctx, OWNER, ConfigMap, desired());
      assert.equal(gets.length, 1);
      cached.metadata.generation = 4;
      await ensureChild(ctx, OWNER, ConfigMap, desired());
      assert.equal(gets.length, 2);
    });

    it("keeps what others added with exclusive: false, or from writers it allows", async () => {
      const { cached, live } = withAddition("kubectl-patch");
      const allow = [{ manager: "kubectl-patch" }, { manager: "labeler" }];
      for (const exclusive of [false, { allow }]) {
        const { ctx, patches, gets } = childContext({ stored: [cached], server: [live] });
        assert.equal(await ensureChild(ctx, OWNER, ConfigMap, desired(), { exclusive }), "unchanged");
        assert.deepEqual([patches, gets], [[], []]);
      }
    });

    it("after an apply, finds additions in the apply's answer without another read", async () => {
      const { live } = withAddition("kubectl-patch");
      const answer = { ...live, metadata: { ...live.metadata, resourceVersion: "43" } };
      const older = stored("old", [entry("widgets", T_OURS, "Apply")]);
      const { ctx, applies, patches, gets, drifts } = childContext({
        stored: [older],
        applied: () => answer,
      });
      assert.equal(await ensureChild(ctx, OWNER, ConfigMap, desired()), "updated");
      assert.equal(applies.length, 1);
      assert.deepEqual(gets, []);
      assert.deepEqual(
        patches.map((p) => p.patch),
        [
          [
            { op: "replace", path: "/metadata/resourceVersion", value: "43" },
            { op: "remove", path: "/data/addedByOthers" },
            { op: "replace", path: "/metadata/managedFields", value: withoutWriter(live, "kubectl-patch") },
          ],
        ],
      );
      assert.deepEqual(drifts, [["ConfigMap", "kubectl-patch"]], "reported once");
    });
  });

  it("does nothing while the owner is being deleted", async () => {
    const { ctx, applies, informers } = childContext();
    const deleting = widget({ deletionTimestamp: "2026-01-01T00:00:00Z" });
    assert.equal(await ensureChild(ctx, deleting, ConfigMap, desired()), "unchanged");
    assert.equal(applies.length, 0);
    assert.deepEqual(informers, []);
  });

  it("uses a custom matcher instead of containment", async () => {
    const { ctx, applies } = childContext({ stored: [stored("different")] });
    const result = await ensureChild(ctx, OWNER, ConfigMap, desired(), {
      matches: (want, have) => want.metadata.name === have.metadata.name,
    });
    assert.equal(result, "unchanged");
    assert.equal(applies.length, 0);
  });

  it("sees a changed label or annotation it desires as a difference", async () => {
    const { ctx, applies } = childContext({ stored: [stored("hi")] });
    const want = desired();
    want.metadata.labels = { tier: "web" };
    assert.equal(await ensureChild(ctx, OWNER, ConfigMap, want), "updated");
    assert.equal(applies.length, 1);
  });

  it("rejects a child in another namespace than its owner", async () => {
    const { ctx, applies } = childContext();
    const elsewhere = configMap("w-config", {}, { namespace: "other" });
    await assert.rejects(
      ensureChild(ctx, OWNER, ConfigMap, elsewhere),
      /cannot own ConfigMap other\/w-config/,
    );
    assert.equal(applies.length, 0);
  });
});
