/**
 * A draft that declares its reconciles failing: the summary no longer True, `Reconciling=True`
 * with reason `ProgressingWithRetry` (Flux's mark of a retried failure; kstatus reads
 * InProgress), and the next draft that does not declare it restores what the dependents say.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeClock } from "../../../src/clock/index.ts";
import { defineConditionSet, findCondition, kstatus } from "../../../src/status/index.ts";
import { NOW_MS, subject } from "./support.ts";

const App = defineConditionSet({
  summary: "Ready",
  dependents: { Available: "normal-true" },
});

const Run = defineConditionSet({
  summary: "Succeeded",
  dependents: { Finished: "normal-true" },
});

const failure = "failing since 2026-11-22T04:25:00Z; last error: the backup bucket does not exist";

function healthy(status?: Parameters<typeof subject>[1]) {
  return App.begin(subject(1, status), new FakeClock(NOW_MS)).set("Available", {
    status: "True",
    reason: "Up",
  });
}

describe("StatusDraft.failing", () => {
  it("turns a True summary False with the reason, and Reconciling=True ProgressingWithRetry", () => {
    const { status } = healthy().failing("ReconcileFailed", failure).finish();
    const ready = findCondition(status.conditions, "Ready");
    const reconciling = findCondition(status.conditions, "Reconciling");
    assert.deepEqual([ready?.status, ready?.reason, ready?.message], ["False", "ReconcileFailed", failure]);
    assert.deepEqual(
      [reconciling?.status, reconciling?.reason, reconciling?.message],
      ["True", "ProgressingWithRetry", failure],
    );
    assert.equal(findCondition(status.conditions, "Stalled"), undefined);
    assert.equal(findCondition(status.conditions, "Available")?.status, "True", "dependents untouched");
    const seen = kstatus({ ...subject(1, status), kind: "Widget" });
    assert.deepEqual(
      [seen.status, seen.reason, seen.message],
      ["InProgress", "ProgressingWithRetry", failure],
    );
  });

  it("keeps a Succeeded summary Unknown when asked, as a stall does", () => {
    const { status } = Run.begin(subject(1), new FakeClock(NOW_MS))
      .failing("ReconcileFailed", failure, { summary: "Unknown" })
      .finish();
    assert.equal(findCondition(status.conditions, "Succeeded")?.status, "Unknown");
    assert.equal(findCondition(status.conditions, "Reconciling")?.reason, "ProgressingWithRetry");
  });

  it("gives way to a stall declared in the same draft, in either order", () => {
    for (const draft of [
      healthy().failing("ReconcileFailed", failure).stalled("InvalidSpec", "fix it"),
      healthy().stalled("InvalidSpec", "fix it").failing("ReconcileFailed", failure),
    ]) {
      const { conditions } = draft.finish().status;
      assert.equal(findCondition(conditions, "Ready")?.reason, "InvalidSpec");
      assert.equal(findCondition(conditions, "Stalled")?.status, "True");
      assert.equal(findCondition(conditions, "Reconciling"), undefined);
    }
  });

  it("holds for its draft only: the next draft, begun from what it wrote, restores the truth", () => {
    const marked = healthy().failing("ReconcileFailed", failure).finish().status;
    const restored = healthy(marked).finish();
    assert.ok(restored.changed);
    assert.deepEqual(
      restored.status.conditions.map((c) => `${c.type}=${c.status} ${c.reason}`),
      ["Available=True Up", "Ready=True AllConditionsNormal"],
      "the summary rolled up again; Reconciling gone",
    );
    const unsettled = App.begin(subject(1, marked), new FakeClock(NOW_MS))
      .set("Available", { status: "False", reason: "NoReplicas", message: "0/3" })
      .finish().status.conditions;
    assert.deepEqual(
      [findCondition(unsettled, "Ready")?.reason, findCondition(unsettled, "Reconciling")?.reason],
      ["NoReplicas", "NoReplicas"],
      "a summary that is not True takes the dependents' reason, and so does Reconciling",
    );
  });

  it("rejects an invalid reason", () => {
    assert.throws(() => healthy().failing("not a reason"), /reason/);
  });
});
