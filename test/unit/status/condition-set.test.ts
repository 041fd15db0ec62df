/**
 * The condition-set engine as one specification, read top to bottom: declaring a set, the default
 * and custom roll-ups, Reconciling and Stalled, generation stamping, drafts, transitions, phase and
 * kstatus. Each part builds on the ones before and shares the fixtures of `support.ts`, which is why
 * this file stays whole.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeClock } from "../../../src/clock/index.ts";
import {
  type ConditionStatus,
  defineConditionSet,
  findCondition,
  InvalidConditionError,
  isTrue,
  kstatus,
  type Polarity,
  type SummaryType,
} from "../../../src/status/index.ts";
import { EARLIER, NOW, NOW_MS, stored, subject } from "./support.ts";

const App = defineConditionSet({
  summary: "Ready",
  dependents: { Available: "normal-true", Degraded: "normal-false" },
});

function clock(): FakeClock {
  return new FakeClock(NOW_MS);
}

function field(err: unknown): string | undefined {
  return err instanceof InvalidConditionError ? err.field : undefined;
}

describe("defineConditionSet", () => {
  it("exposes the summary and every type it writes, in order", () => {
    assert.equal(App.summary, "Ready");
    assert.deepEqual(App.types, ["Ready", "Available", "Degraded", "Reconciling", "Stalled"]);
    assert.deepEqual(App.dependents, [
      { type: "Available", polarity: "normal-true" },
      { type: "Degraded", polarity: "normal-false" },
    ]);
    assert.ok(Object.isFrozen(App) && Object.isFrozen(App.types));
  });

  for (const reserved of ["Ready", "Reconciling", "Stalled"]) {
    it(`rejects ${reserved} as a dependent`, () => {
      assert.throws(
        () => defineConditionSet({ summary: "Ready", dependents: { [reserved]: "normal-true" } }),
        (err: unknown) => field(err) === "set dependent",
      );
    });
  }

  it("rejects an invalid dependent type", () => {
    assert.throws(
      () => defineConditionSet({ summary: "Ready", dependents: { "Not Valid": "normal-true" } }),
      (err: unknown) => field(err) === "type",
    );
  });

  it("rejects an unknown polarity, naming the type", () => {
    const dependents = { Available: "positive" as Polarity };
    assert.throws(
      () => defineConditionSet({ summary: "Ready", dependents }),
      (err: unknown) => field(err) === "polarity of Available",
    );
  });

  it("rejects an empty set and an unknown summary", () => {
    assert.throws(
      () => defineConditionSet({ summary: "Ready", dependents: {} }),
      (err: unknown) => field(err) === "set dependents",
    );
    assert.throws(
      () => defineConditionSet({ summary: "Healthy" as SummaryType, dependents: { A: "normal-true" } }),
      (err: unknown) => field(err) === "set summary",
    );
  });
});

describe("default roll-up", () => {
  type Row = [
    available: ConditionStatus | undefined,
    degraded: ConditionStatus | undefined,
    ready: ConditionStatus,
  ];
  const table: Row[] = [
    ["True", "False", "True"],
    ["False", "False", "False"],
    ["True", "True", "False"],
    ["False", "True", "False"],
    ["False", "Unknown", "False"],
    [undefined, "True", "False"],
    ["Unknown", "False", "Unknown"],
    ["True", "Unknown", "Unknown"],
    [undefined, "False", "Unknown"],
    ["True", undefined, "Unknown"],
    [undefined, undefined, "Unknown"],
  ];
  for (const [available, degraded, expected] of table) {
    it(`Available=${available ?? "absent"} (normal True), Degraded=${degraded ?? "absent"} (normal False) → Ready=${expected}`, () => {
      const draft = App.begin(subject(1), clock());
      if (available) draft.set("Available", { status: available, reason: `Available${available}` });
      if (degraded) draft.set("Degraded", { status: degraded, reason: `Degraded${degraded}` });
      assert.equal(findCondition(draft.finish().status.conditions, "Ready")?.status, expected);
    });
  }

  it("takes reason and message from the first abnormal dependent in declaration order", () => {
    const draft = App.begin(subject(1), clock())
      .set("Degraded", { status: "True", reason: "DiskFull", message: "disk full" })
      .set("Available", { status: "False", reason: "NoReplicas", message: "0/3 ready" });
    const ready = findCondition(draft.finish().status.conditions, "Ready");
    assert.deepEqual([ready?.reason, ready?.message], ["NoReplicas", "0/3 ready"]);
  });

  it("prefers an abnormal dependent over an earlier Unknown one", () => {
    const draft = App.begin(subject(1), clock())
      .set("Available", { status: "Unknown", reason: "Checking" })
      .set("Degraded", { status: "True", reason: "DiskFull", message: "disk full" });
    const ready = findCondition(draft.finish().status.conditions, "Ready");
    assert.deepEqual([ready?.status, ready?.reason], ["False", "DiskFull"]);
  });

  it("gives an Unknown summary the first Unknown dependent's reason and message", () => {
    const draft = App.begin(subject(1), clock())
      .set("Available", { status: "True", reason: "Up" })
      .set("Degraded", { status: "Unknown", reason: "MetricsUnavailable", message: "no metrics" });
    const ready = findCondition(draft.finish().status.conditions, "Ready");
    assert.deepEqual([ready?.reason, ready?.message], ["MetricsUnavailable", "no metrics"]);
  });

  it("names a dependent that was not reported", () => {
    const draft = App.begin(subject(1), clock()).set("Available", { status: "True", reason: "Up" });
    const ready = findCondition(draft.finish().status.conditions, "Ready");
    assert.equal(ready?.reason, "NotReported");
    assert.match(ready?.message ?? "", /Degraded has not been reported/);
  });

  it("gives a True summary reason AllConditionsNormal", () => {
    const draft = App.begin(subject(1), clock())
      .set("Available", { status: "True", reason: "Up" })
      .set("Degraded", { status: "False", reason: "Healthy" });
    const ready = findCondition(draft.finish().status.conditions, "Ready");
    assert.deepEqual([ready?.reason, ready?.message], ["AllConditionsNormal", ""]);
  });

  it("reads a dependent reported only for an older generation as not reported", () => {
    const obj = subject(3, {
      observedGeneration: 2,
      conditions: [stored("Available", "True", { observedGeneration: 2 })],
    });
    const next = App.begin(obj, clock()).set("Degraded", { status: "False", reason: "Healthy" }).finish();
    const ready = findCondition(next.status.conditions, "Ready");
    assert.deepEqual([ready?.status, ready?.reason], ["Unknown", "NotReported"]);
    assert.deepEqual(
      findCondition(next.status.conditions, "Available"),
      stored("Available", "True", { observedGeneration: 2 }),
    );
  });
});

describe("custom roll-up", () => {
  const Run = defineConditionSet({
    summary: "Succeeded",
    dependents: { WorkersFinished: "normal-true", WorkersFailed: "normal-false" },
    rollUp: (deps) => {
      const failed = deps.find((d) => d.type === "WorkersFailed");
      if (failed?.health === "abnormal")
        return { status: "False", reason: "WorkersFailed", message: "a worker failed" };
      if (deps.every((d) => d.health === "normal")) return { status: "True", reason: "AllWorkersSucceeded" };
      return { status: "Unknown", reason: "Running" };
    },
  });

  it("replaces the default: a not-yet-finished run is Unknown, not False", () => {
    const next = Run.begin(subject(1), clock())
      .set("WorkersFinished", { status: "False", reason: "Running" })
      .set("WorkersFailed", { status: "False", reason: "NoFailures" })
      .finish();
    const succeeded = findCondition(next.status.conditions, "Succeeded");
    assert.deepEqual([succeeded?.status, succeeded?.reason], ["Unknown", "Running"]);
  });

  it("sees each dependent's health and condition", () => {
    const next = Run.begin(subject(1), clock())
      .set("WorkersFinished", { status: "True", reason: "Done" })
      .set("WorkersFailed", { status: "True", reason: "Crashed" })
      .finish();
    assert.equal(findCondition(next.status.conditions, "Succeeded")?.reason, "WorkersFailed");
  });

  it("is validated like any condition", () => {
    const Bad = defineConditionSet({
      summary: "Ready",
      dependents: { A: "normal-true" },
      rollUp: () => ({ status: "True", reason: "not camel" }),
    });
    assert.throws(
      () => Bad.begin(subject(1)).finish(),
      (err: unknown) => field(err) === "reason",
    );
  });
});

describe("Reconciling and Stalled", () => {
  function allNormal() {
    return App.begin(subject(1), clock())
      .set("Available", { status: "True", reason: "Up" })
      .set("Degraded", { status: "False", reason: "Healthy" });
  }

  it("reports Reconciling=True with the summary's reason while the summary is not settled", () => {
    const next = App.begin(subject(1), clock())
      .set("Available", { status: "False", reason: "NoReplicas", message: "0/3" })
      .finish();
    assert.deepEqual(findCondition(next.status.conditions, "Reconciling"), {
      type: "Reconciling",
      status: "True",
      observedGeneration: 1,
      lastTransitionTime: NOW,
      reason: "NoReplicas",
      message: "0/3",
    });
    assert.equal(findCondition(next.status.conditions, "Stalled"), undefined);
  });

  it("reports Stalled=True, no Reconciling and a False summary when the controller is stuck", () => {
    const obj = subject(1, { conditions: [stored("Reconciling", "True")] });
    const next = App.begin(obj, clock())
      .set("Available", { status: "True", reason: "Up" })
      .set("Degraded", { status: "False", reason: "Healthy" })
      .stalled("InvalidSpec", "spec.replicas must be >= 1")
      .finish();
    const { conditions } = next.status;
    assert.equal(findCondition(conditions, "Reconciling"), undefined);
    assert.deepEqual(
      [findCondition(conditions, "Stalled")?.status, findCondition(conditions, "Stalled")?.message],
      ["True", "spec.replicas must be >= 1"],
    );
    const ready = findCondition(conditions, "Ready");
    assert.deepEqual([ready?.status, ready?.reason], ["False", "InvalidSpec"]);
  });

  it("removes both once the summary is settled", () => {
    const obj = subject(1, { conditions: [stored("Reconciling", "True"), stored("Stalled", "True")] });
    const next = App.begin(obj, clock())
      .set("Available", { status: "True", reason: "Up" })
      .set("Degraded", { status: "False", reason: "Healthy" })
      .finish();
    assert.deepEqual(
      next.status.conditions.map((c) => `${c.type}=${c.status}`),
      ["Available=True", "Degraded=False", "Ready=True"],
    );
  });

  it("rejects an invalid stall reason when it is declared", () => {
    assert.throws(
      () => allNormal().stalled("bad reason"),
      (err: unknown) => field(err) === "reason",
    );
  });

  it("forgets a stall after a reconcile that does not declare it", () => {
    const first = allNormal().stalled("InvalidSpec").finish();
    const second = App.begin(subject(1, first.status), clock())
      .set("Available", { status: "True", reason: "Up" })
      .set("Degraded", { status: "False", reason: "Healthy" })
      .finish();
    assert.equal(findCondition(second.status.conditions, "Stalled"), undefined);
    assert.equal(isTrue(second.status.conditions, "Ready"), true);
  });
});

describe("generation stamping", () => {
  it("stamps every condition it writes and status.observedGeneration with metadata.generation", () => {
    const obj = subject(7, {
      observedGeneration: 6,
      conditions: [stored("Available", "True", { observedGeneration: 6 })],
    });
    const next = App.begin(obj, clock())
      .set("Available", { status: "True", reason: "AvailableTrue" })
      .set("Degraded", { status: "Unknown", reason: "Checking" })
      .finish();
    assert.equal(next.status.observedGeneration, 7);
    assert.deepEqual(
      next.status.conditions.map((c) => [c.type, c.observedGeneration]),
      [
        ["Available", 7],
        ["Degraded", 7],
        ["Ready", 7],
        ["Reconciling", 7],
      ],
    );
  });

  it("moves no lastTransitionTime when only the generation changes", () => {
    const obj = subject(2, {
      observedGeneration: 1,
      conditions: [
        stored("Available", "True"),
        stored("Degraded", "False"),
        stored("Ready", "True", { reason: "AllConditionsNormal" }),
      ],
    });
    const next = App.begin(obj, clock())
      .set("Available", { status: "True", reason: "AvailableTrue" })
      .set("Degraded", { status: "False", reason: "DegradedFalse" })
      .finish();
    assert.equal(next.changed, true);
    assert.deepEqual(next.transitions, []);
    assert.ok(
      next.status.conditions.every((c) => c.lastTransitionTime === EARLIER && c.observedGeneration === 2),
    );
  });

  it("passes conditions of types it does not own through untouched", () => {
    const foreign = stored("example.com/Backup", "False", { observedGeneration: 1 });
    const next = App.begin(subject(5, { conditions: [foreign] }), clock())
      .set("Available", { status: "True", reason: "Up" })
      .finish();
    assert.deepEqual(next.status.conditions[0], foreign);
  });

  it("leaves observedGeneration out when the object has no generation", () => {
    const next = App.begin(subject(undefined), clock())
      .set("Available", { status: "True", reason: "Up" })
      .finish();
    assert.equal("observedGeneration" in next.status, false);
    assert.ok(next.status.conditions.every((c) => !("observedGeneration" in c)));
  });
});

describe("drafts", () => {
  it("never mutate the object they began from", () => {
    const obj = subject(2, { observedGeneration: 1, conditions: [stored("Available", "False")] });
    const snapshot = structuredClone(obj);
    App.begin(obj, clock()).set("Available", { status: "True", reason: "Up" }).stalled("Stuck").finish();
    assert.deepEqual(obj, snapshot);
  });

  it("stamp transition times from the injected clock at second precision", () => {
    const next = App.begin(subject(1), clock()).set("Available", { status: "True", reason: "Up" }).finish();
    assert.ok(next.status.conditions.every((c) => c.lastTransitionTime === NOW));
  });

  it("reject a type that is not a declared dependent", () => {
    const draft = App.begin(subject(1));
    for (const type of ["Ready", "Reconciling", "Other"]) {
      assert.throws(
        () => draft.set(type as "Available", { status: "True", reason: "Up" }),
        (err: unknown) => field(err) === "type" && (err as Error).message.includes("Available, Degraded"),
      );
    }
  });

  it("finish without side effects, so a second call gives the same result", () => {
    const draft = App.begin(subject(1), clock()).set("Available", { status: "True", reason: "Up" });
    assert.deepEqual(draft.finish(), draft.finish());
  });
});

describe("changed and transitions", () => {
  function reconcile(obj: ReturnType<typeof subject>, available: ConditionStatus, at = clock()) {
    return App.begin(obj, at)
      .set("Available", { status: available, reason: `Available${available}` })
      .set("Degraded", { status: "False", reason: "Healthy" })
      .finish();
  }

  it("reports every condition that appeared on the first reconcile", () => {
    const next = reconcile(subject(1), "False");
    assert.equal(next.changed, true);
    assert.deepEqual(next.transitions, [
      { type: "Ready", from: undefined, to: "False", reason: "AvailableFalse", message: "" },
      { type: "Available", from: undefined, to: "False", reason: "AvailableFalse", message: "" },
      { type: "Degraded", from: undefined, to: "False", reason: "Healthy", message: "" },
      { type: "Reconciling", from: undefined, to: "True", reason: "AvailableFalse", message: "" },
    ]);
  });

  it("is unchanged, with no transitions, when a settled object is reconciled again", () => {
    const first = reconcile(subject(1), "True");
    const later = new FakeClock(NOW_MS + 60_000);
    const second = reconcile(subject(1, first.status), "True", later);
    assert.equal(second.changed, false);
    assert.deepEqual(second.transitions, []);
    assert.deepEqual(second.status, first.status);
  });

  it("reports status changes and removals, with the new reason", () => {
    const first = reconcile(subject(1), "False");
    const second = reconcile(subject(1, first.status), "True");
    assert.deepEqual(second.transitions, [
      { type: "Ready", from: "False", to: "True", reason: "AllConditionsNormal", message: "" },
      { type: "Available", from: "False", to: "True", reason: "AvailableTrue", message: "" },
      { type: "Reconciling", from: "True", to: undefined, reason: undefined, message: undefined },
    ]);
  });

  it("counts a reason-only change as a change but not as a transition", () => {
    const first = reconcile(subject(1), "False");
    const second = App.begin(subject(1, first.status), clock())
      .set("Available", { status: "False", reason: "StillScaling" })
      .set("Degraded", { status: "False", reason: "Healthy" })
      .finish();
    assert.equal(second.changed, true);
    assert.deepEqual(second.transitions, []);
  });

  it("is changed when only status.observedGeneration is missing from the stored status", () => {
    const first = reconcile(subject(1), "True");
    const { observedGeneration: _, ...withoutGeneration } = first.status;
    assert.equal(reconcile(subject(1, withoutGeneration), "True").changed, true);
  });
});

describe("phase", () => {
  const Phased = defineConditionSet({
    summary: "Ready",
    dependents: { Available: "normal-true" },
    phase: (conditions) => (isTrue(conditions, "Ready") ? "Running" : "Pending"),
  });

  it("is derived from the final conditions", () => {
    const pending = Phased.begin(subject(1), clock())
      .set("Available", { status: "False", reason: "Down" })
      .finish();
    const running = Phased.begin(subject(1), clock())
      .set("Available", { status: "True", reason: "Up" })
      .finish();
    assert.equal(pending.status.phase, "Pending");
    assert.equal(running.status.phase, "Running");
  });

  it("is recomputed, never read back, and a stale stored phase is a change", () => {
    const first = Phased.begin(subject(1), clock())
      .set("Available", { status: "True", reason: "Up" })
      .finish();
    const tampered = { ...first.status, phase: "Failed" };
    const next = Phased.begin(subject(1, tampered), clock())
      .set("Available", { status: "True", reason: "Up" })
      .finish();
    assert.equal(next.status.phase, "Running");
    assert.equal(next.changed, true);
  });

  it("is absent when the kind declares no phase function", () => {
    const next = App.begin(subject(1, { phase: "Old" } as never), clock())
      .set("Available", { status: "True", reason: "Up" })
      .finish();
    assert.equal("phase" in next.status, false);
  });
});

describe("kstatus of a finished status", () => {
  function kstatusAfter(configure: (draft: ReturnType<typeof App.begin>) => unknown) {
    const draft = App.begin(subject(4), clock());
    configure(draft);
    return kstatus({ kind: "Widget", metadata: { generation: 4 }, status: draft.finish().status });
  }

  it("is Current once the summary is settled", () => {
    const result = kstatusAfter((d) =>
      d
        .set("Available", { status: "True", reason: "Up" })
        .set("Degraded", { status: "False", reason: "Healthy" }),
    );
    assert.equal(result.status, "Current");
  });

  it("is InProgress with the summary's reason while reconciling", () => {
    const result = kstatusAfter((d) =>
      d.set("Available", { status: "False", reason: "NoReplicas", message: "0/3" }),
    );
    assert.deepEqual(result, { status: "InProgress", reason: "NoReplicas", message: "0/3" });
  });

  it("is Failed with the stall message when stalled", () => {
    const result = kstatusAfter((d) => d.stalled("InvalidSpec", "spec.replicas must be >= 1"));
    assert.deepEqual(result, {
      status: "Failed",
      reason: "InvalidSpec",
      message: "spec.replicas must be >= 1",
    });
  });

  it("is InProgress once the spec changes, until the next reconcile", () => {
    const settled = App.begin(subject(4), clock())
      .set("Available", { status: "True", reason: "Up" })
      .set("Degraded", { status: "False", reason: "Healthy" })
      .finish();
    const result = kstatus({ kind: "Widget", metadata: { generation: 5 }, status: settled.status });
    assert.equal(result.reason, "LatestGenerationNotObserved");
  });
});
