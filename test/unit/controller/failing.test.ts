/**
 * A key whose reconciles keep failing shows it on its object (kinds with a condition set): past
 * `showFailingAfter` the summary is no longer True (reason `ReconcileFailed`), `Reconciling=True`
 * (`ProgressingWithRetry`) and the message says since when and the last error; written once, and
 * again only when what it shows changes. Routine failures neither count nor show.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigMap, type ConfigMapObject, type ResourceType } from "../../../src/api/index.ts";
import { ForbiddenError } from "../../../src/client/index.ts";
import { Action, type ControllerOptions } from "../../../src/controller/index.ts";
import { type Condition, defineConditionSet, findCondition } from "../../../src/status/index.ts";
import { conflict, FakeStatusClient } from "../status/update-status-support.ts";
import { flush, harness, unfenced } from "./support.ts";

const WidgetConditions = defineConditionSet({ summary: "Ready", dependents: { Configured: "normal-true" } });
const RunConditions = defineConditionSet({ summary: "Succeeded", dependents: { Finished: "normal-true" } });

/** ConfigMaps whose kind declares `conditions`, as `defineKind({ conditions })` does. */
const withConditions = (conditions: object = WidgetConditions) =>
  ({ ...ConfigMap, conditions }) as ResourceType<ConfigMapObject>;

type Status = { conditions: Condition[]; observedGeneration?: number };

/** ConfigMap `a` at generation 1, Ready as its reconciler last wrote it, at `resourceVersion`. */
function widget(resourceVersion = "1", status?: Status): ConfigMapObject {
  const ready: Status = {
    observedGeneration: 1,
    conditions: [
      {
        type: "Configured",
        status: "True",
        reason: "Done",
        message: "",
        lastTransitionTime: "1970-01-01T00:00:01Z",
      },
      {
        type: "Ready",
        status: "True",
        reason: "AllConditionsNormal",
        message: "",
        lastTransitionTime: "1970-01-01T00:00:01Z",
      },
    ],
  };
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "a", namespace: "ns", resourceVersion, generation: 1 },
    status: status ?? ready,
  } as ConfigMapObject;
}

/**
 * A controller whose reconciler throws `fail(i)` on its `i`th call (undefined: succeeds), on a
 * kind with a condition set, writing status through a recording fake.
 */
function failing(
  t: Parameters<typeof harness>[0],
  fail: (i: number) => unknown,
  options: ControllerOptions = {},
  primary = withConditions(),
) {
  const status = new FakeStatusClient();
  const h = harness(
    t,
    (_call, i) => {
      const error = fail(i);
      if (error !== undefined) throw error;
      return undefined;
    },
    options,
    { primary, client: unfenced(status) },
  );
  h.store.writer.apply(widget());
  void h.run();
  h.source.enqueue("ns/a", "watch:ConfigMap:create");
  return { ...h, status };
}

/** Lets the retries of the default backoff (5 ms doubling per failure in a row) run until `n` reconciles happened. */
async function reconciledTimes(h: ReturnType<typeof failing>, n: number): Promise<void> {
  await flush();
  for (let step = 0; step < 100 && h.reconciles.length < n; step++) {
    await h.advance(5 * 2 ** Math.max(0, h.controller.queue.retries("ns/a") - 1));
  }
  assert.equal(h.reconciles.length, n);
}

const bucket = new Error("the backup bucket does not exist");

function conditionsSent(status: FakeStatusClient, index = 0): Condition[] {
  return (status.sentStatus("patch", index) as Status).conditions;
}

describe("Controller: a key whose reconciles keep failing", () => {
  it("shows it on its object at the 10th failure in a row: summary False, Reconciling, since when and the last error", async (t) => {
    const h = failing(t, () => bucket);
    await reconciledTimes(h, 9);
    assert.equal(h.status.calls.length, 0, "nine failures in a row are not shown yet");
    await reconciledTimes(h, 10);
    assert.equal(h.status.of("patch").length, 1);
    const conditions = conditionsSent(h.status);
    const message = "failing since 1970-01-01T00:00:10Z; last error: the backup bucket does not exist";
    const ready = findCondition(conditions, "Ready");
    assert.deepEqual([ready?.status, ready?.reason, ready?.message], ["False", "ReconcileFailed", message]);
    const reconciling = findCondition(conditions, "Reconciling");
    assert.deepEqual(
      [reconciling?.status, reconciling?.reason, reconciling?.message],
      ["True", "ProgressingWithRetry", message],
    );
    assert.equal(findCondition(conditions, "Configured")?.status, "True", "the dependents stay as reported");
    assert.ok(!h.calls.some((c) => c.startsWith("handling")));
    assert.deepEqual(
      h.events.callsOf("create").map((c) => c.body.reason),
      ["ReconcileError"],
      "the status write adds no event of its own: the Warning event tells the failure",
    );
  });

  it("writes again only when what it shows changes, at most once every 30 s", async (t) => {
    const h = failing(t, (i) => (i < 12 ? bucket : new Error("the backup bucket is read-only")));
    await reconciledTimes(h, 10); // shown at the 10th failure, 2.555 s after the first
    const before = (widget() as { status?: Status }).status;
    const patched = { ...before, ...(h.status.sentStatus("patch") as Status) }; // a merge patch
    h.store.writer.apply(widget("2", patched)); // the write's watch event
    await reconciledTimes(h, 12);
    assert.equal(h.status.of("patch").length, 1, "the same failure, already shown: nothing sent");
    await reconciledTimes(h, 13);
    assert.equal(h.status.of("patch").length, 1, "a new last error 18 s after the last write waits");
    await reconciledTimes(h, 14);
    assert.equal(h.status.of("patch").length, 2, "38 s after the last write, the new last error is shown");
    assert.match(
      findCondition(conditionsSent(h.status, 1), "Ready")?.message ?? "",
      /^failing since 1970-01-01T00:00:10Z; last error: the backup bucket is read-only$/,
    );
  });

  it("makes no loop of a last error that differs every time, though each write's watch event brings the key back at once", async (t) => {
    const h = failing(t, (i) => new Error(`request ${i} failed`), { showFailingAfter: { failures: 1 } });
    const { patch } = h.status.status;
    const written: number[] = [];
    Object.assign(h.status.status, {
      patch: async (...args: Parameters<typeof patch>) => {
        const answer = await patch(...args);
        written.push(h.clock.now() - 10_000);
        const sent = (args[2] as { status: Status }).status;
        const stored = (h.store.reader.get("ns/a") as { status?: Status } | undefined)?.status;
        h.store.writer.apply(widget(String(h.status.calls.length + 1), { ...stored, ...sent }));
        h.source.enqueue("ns/a", "watch:ConfigMap:update");
        return answer;
      },
    });
    await flush();
    for (let second = 0; second < 65; second++) await h.advance(1_000);
    assert.ok(written.length >= 2, "a new last error is shown");
    const gaps = written.slice(1).map((at, i) => at - (written[i] ?? 0));
    assert.ok(
      gaps.every((gap) => gap >= 30_000),
      `${written.length} writes, at ${written.slice(0, 5).join(", ")}… ms: at most one every 30 s`,
    );
    assert.ok(h.reconciles.length < 20, `${h.reconciles.length} reconciles in 65 s: the backoff holds`);
  });

  it("shows a failure that lasts, even with few failures: an errorPolicy retrying every 20 s shows it at 30 s", async (t) => {
    const h = failing(t, () => bucket, { errorPolicy: () => Action.requeueAfter(20_000) });
    await flush();
    await h.advance(20_000);
    assert.equal(h.reconciles.length, 2);
    assert.equal(h.status.calls.length, 0, "failing for 20 s: not yet");
    await h.advance(20_000);
    assert.equal(h.reconciles.length, 3);
    assert.equal(h.status.of("patch").length, 1, "failing for 40 s, past 30 s: shown");
  });

  it("starts counting again after a success", async (t) => {
    const h = failing(t, (i) => (i === 9 ? undefined : bucket));
    await reconciledTimes(h, 10);
    h.source.enqueue("ns/a", "watch:ConfigMap:update");
    await reconciledTimes(h, 19);
    assert.equal(h.status.calls.length, 0, "9 failures, a success, 9 failures: never 10 in a row");
  });

  it("takes its thresholds from showFailingAfter, and shows nothing with false", async (t) => {
    const early = failing(t, () => bucket, { showFailingAfter: { failures: 3 } });
    await reconciledTimes(early, 3);
    assert.equal(early.status.of("patch").length, 1);
    const never = failing(t, () => bucket, { showFailingAfter: false });
    await reconciledTimes(never, 15);
    assert.equal(never.status.calls.length, 0);
  });

  for (const [what, error] of [
    ["a 409 Conflict", conflict()],
    ["a wrapped 409 Conflict", new Error("writing status", { cause: conflict() })],
  ] as const) {
    it(`neither counts nor shows ${what}: routine`, async (t) => {
      const h = failing(t, (i) => (i % 2 === 0 ? error : bucket), { showFailingAfter: { failures: 6 } });
      await reconciledTimes(h, 11);
      assert.equal(h.status.calls.length, 0, "5 real failures among the conflicts");
      await reconciledTimes(h, 12);
      assert.equal(h.status.of("patch").length, 1, "the 6th real failure, conflicts between them");
    });
  }

  it("keeps a Succeeded summary Unknown, as the stall of an invalid child does", async (t) => {
    const h = failing(t, () => bucket, { showFailingAfter: { failures: 1 } }, withConditions(RunConditions));
    await reconciledTimes(h, 1);
    const conditions = conditionsSent(h.status);
    assert.equal(findCondition(conditions, "Succeeded")?.status, "Unknown");
    assert.equal(findCondition(conditions, "Succeeded")?.reason, "ReconcileFailed");
  });

  it("trims a long last error to its first 1000 characters", async (t) => {
    const h = failing(t, () => new Error("x".repeat(5000)), { showFailingAfter: { failures: 1 } });
    await reconciledTimes(h, 1);
    const message = findCondition(conditionsSent(h.status), "Ready")?.message ?? "";
    assert.equal(message, `failing since 1970-01-01T00:00:10Z; last error: ${"x".repeat(999)}…`);
  });

  it("leaves it to the next failure when the object changed meanwhile (409): one attempt", async (t) => {
    const h = failing(t, () => bucket, { showFailingAfter: { failures: 1 } });
    h.status.writes.push(conflict());
    await reconciledTimes(h, 2);
    assert.equal(h.status.of("patch").length, 2, "one attempt per failure, nothing re-read");
    assert.equal(h.status.of("read").length + h.status.of("get").length, 0);
    assert.ok(!h.calls.some((c) => c.startsWith("handling")));
  });

  const quota = new ForbiddenError(
    {
      code: 403,
      reason: "Forbidden",
      message:
        'deployments.apps "a" is forbidden: exceeded quota: no-deployments, requested: count/deployments.apps=1, used: count/deployments.apps=0, limited: count/deployments.apps=0',
      details: { name: "a", group: "apps", kind: "deployments" },
    },
    { method: "POST", path: "/apis/apps/v1/namespaces/ns/deployments" },
  );
  for (const [what, error] of [
    ["a child a quota refused", quota],
    ["a child a quota refused, wrapped", new Error("creating the Deployment", { cause: quota })],
  ] as const) {
    it(`shows ${what} at the first failure, naming the quota, with the Warning event's reason`, async (t) => {
      const h = failing(t, () => error);
      await reconciledTimes(h, 1);
      assert.equal(h.status.of("patch").length, 1, "not after ten failures: at once");
      const conditions = conditionsSent(h.status);
      const ready = findCondition(conditions, "Ready");
      assert.deepEqual([ready?.status, ready?.reason], ["False", "QuotaExceeded"]);
      assert.match(
        ready?.message ?? "",
        /^deployments\.apps "a" is forbidden: exceeded quota: no-deployments, .*; .*raise the quota/,
      );
      const reconciling = findCondition(conditions, "Reconciling");
      assert.deepEqual(
        [reconciling?.status, reconciling?.reason],
        ["True", "ProgressingWithRetry"],
        "retried",
      );
      assert.equal(findCondition(conditions, "Stalled"), undefined);
      assert.deepEqual(
        h.events.callsOf("create").map((c) => c.body.reason),
        ["QuotaExceeded"],
      );
    });
  }

  it("shows no refusal either with showFailingAfter false", async (t) => {
    const h = failing(t, () => quota, { showFailingAfter: false });
    await reconciledTimes(h, 3);
    assert.equal(h.status.calls.length, 0);
  });

  it("shows nothing on a kind without a condition set", async (t) => {
    const h = failing(t, () => bucket, { showFailingAfter: { failures: 1 } }, ConfigMap);
    await reconciledTimes(h, 3);
    assert.equal(h.status.calls.length, 0);
    assert.equal(h.events.callsOf("create").length, 1);
  });
});
