import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeClock } from "../../../src/clock/index.ts";
import {
  CONDITION_REMOVED_REASON,
  defineConditionSet,
  parseTransitionNote,
  recordTransitions,
  type Transition,
  transitionEvents,
} from "../../../src/status/index.ts";
import { NOW_MS, stored, subject } from "./support.ts";
import { countingReport, FakeRecorder } from "./update-status-support.ts";

const App = defineConditionSet({
  summary: "Ready",
  dependents: { Available: "normal-true", Degraded: "normal-false" },
});

function transition(
  type: string,
  from: Transition["from"],
  to: Transition["to"],
  reason?: string,
  message?: string,
): Transition {
  return { type, from, to, reason, message };
}

describe("transitionEvents", () => {
  it("describes a transition with its statuses, reason and message", () => {
    assert.deepEqual(
      transitionEvents(App, [transition("Ready", "False", "True", "AllConditionsNormal", "3/3 up")]),
      [
        {
          condition: "Ready",
          from: "False",
          type: "Normal",
          reason: "AllConditionsNormal",
          note: "Ready: False → True (AllConditionsNormal): 3/3 up",
        },
      ],
    );
  });

  it("leaves the message out when it is empty, and names an absent status", () => {
    assert.deepEqual(transitionEvents(App, [transition("Available", undefined, "Unknown", "Creating", "")]), [
      {
        condition: "Available",
        type: "Normal",
        reason: "Creating",
        note: "Available: Absent → Unknown (Creating)",
      },
    ]);
  });

  it("warns when a condition lands on its abnormal status, by polarity", () => {
    const types = [
      transition("Ready", "True", "False", "Down"),
      transition("Ready", "True", "Unknown", "Checking"),
      transition("Available", "True", "False", "Down"),
      transition("Available", "False", "True", "Up"),
      transition("Degraded", "False", "True", "Slow"),
      transition("Degraded", "True", "False", "Fast"),
      transition("Stalled", undefined, "True", "InvalidSpec"),
      transition("example.com/Foreign", "True", "False", "Other"),
    ].map((t) => transitionEvents(App, [t])[0]?.type);
    assert.deepEqual(types, [
      "Warning",
      "Normal",
      "Warning",
      "Normal",
      "Warning",
      "Normal",
      "Warning",
      "Normal",
    ]);
  });

  it("reports a removed condition with a reason of its own, and leaves Reconciling out", () => {
    const events = transitionEvents(App, [
      transition("Reconciling", "True", undefined),
      transition("Stalled", "True", undefined),
    ]);
    assert.deepEqual(events, [
      {
        condition: "Stalled",
        from: "True",
        type: "Normal",
        reason: CONDITION_REMOVED_REASON,
        note: "Stalled: True → Absent",
      },
    ]);
  });

  it("tells a write that moved the summary with the summary's event alone", () => {
    const draft = App.begin(subject(2, { conditions: [stored("Ready", "False")] }), new FakeClock(NOW_MS));
    draft
      .set("Available", { status: "True", reason: "Up" })
      .set("Degraded", { status: "False", reason: "Fine" });
    const notes = transitionEvents(App, draft.finish().transitions).map((e) => e.note);
    assert.deepEqual(notes, ["Ready: False → True (AllConditionsNormal)"]);
  });

  it("records a dependent's transition once, as the summary's, when the summary follows it", () => {
    const ready = App.begin(
      subject(1, { conditions: [stored("Ready", "True"), stored("Available", "True")] }),
      new FakeClock(NOW_MS),
    );
    ready
      .set("Available", { status: "False", reason: "SecretMissing", message: "no Secret s" })
      .set("Degraded", { status: "False", reason: "Fine" });
    assert.deepEqual(transitionEvents(App, ready.finish().transitions), [
      {
        condition: "Ready",
        from: "True",
        type: "Warning",
        reason: "SecretMissing",
        note: "Ready: True → False (SecretMissing): no Secret s",
      },
    ]);
  });

  it("records each dependent's transition when the summary stays where it was", () => {
    const events = transitionEvents(App, [
      transition("Available", "True", "False", "SecretMissing"),
      transition("Degraded", "False", "True", "Slow"),
    ]);
    assert.deepEqual(
      events.map((e) => e.note),
      ["Available: True → False (SecretMissing)", "Degraded: False → True (Slow)"],
    );
  });

  it("folds a stall into the summary's event, a Warning even when the summary is Unknown", () => {
    const events = transitionEvents(App, [
      transition("Ready", undefined, "Unknown", "MissingScript", "no script"),
      transition("Available", undefined, "False", "MissingScript", "no script"),
      transition("Stalled", undefined, "True", "MissingScript", "no script"),
      transition("Reconciling", "True", undefined),
    ]);
    assert.deepEqual(
      events.map((e) => [e.type, e.note]),
      [["Warning", "Ready: Absent → Unknown (MissingScript): no script"]],
    );
  });
});

describe("recordTransitions", () => {
  const obj = { apiVersion: "example.com/v1", kind: "App", metadata: { name: "a", namespace: "ns" } };

  it("records each event as Normal or Warning, with action Reconcile by default", () => {
    const recorder = new FakeRecorder();
    recordTransitions({ recorder }, obj, [transition("Ready", "True", "False", "Down", "lost it")], App);
    recordTransitions({ recorder }, obj, [transition("Ready", "False", "True", "Up")], App, {
      action: "Observe",
    });
    assert.deepEqual(recorder.events, [
      ["Warning", "App", "Down", "Reconcile", "Ready: True → False (Down): lost it"],
      ["Normal", "App", "Up", "Observe", "Ready: False → True (Up)"],
    ]);
  });

  it("records nothing without transitions", () => {
    const recorder = new FakeRecorder();
    const { report, counted } = countingReport();
    recordTransitions({ recorder, report }, obj, [], App);
    assert.deepEqual(recorder.events, []);
    assert.deepEqual(counted, []);
  });

  it("counts each transition by kind, condition and new status, leaving out Reconciling as events do", () => {
    const recorder = new FakeRecorder();
    const { report, counted } = countingReport();
    const transitions = [
      transition("Ready", "True", "False", "Down"),
      transition("Reconciling", undefined, "True", "Progressing"),
      transition("Degraded", "False", undefined),
    ];
    recordTransitions({ recorder, report }, obj, transitions, App);
    assert.deepEqual(counted, [
      ["App", "Ready", "False"],
      ["App", "Degraded", "Absent"],
    ]);
    assert.deepEqual(
      recorder.events.map((e) => e[2]),
      ["Down"],
      "one event for the write: the summary's",
    );
  });

  it("records the events options.events returns, changed or not, and counts every transition", () => {
    const recorder = new FakeRecorder();
    const { report, counted } = countingReport();
    const transitions = [
      transition("Ready", "True", "Unknown", "Checking"),
      transition("Available", undefined, "Unknown", "Starting"),
    ];
    recordTransitions({ recorder, report }, obj, transitions, App, {
      events: (e) => (e.condition === "Ready" ? { ...e, type: "Warning", note: "checking" } : undefined),
    });
    assert.deepEqual(recorder.events, [["Warning", "App", "Checking", "Reconcile", "checking"]]);
    assert.deepEqual(counted, [
      ["App", "Ready", "Unknown"],
      ["App", "Available", "Unknown"],
    ]);
  });
});

describe("parseTransitionNote", () => {
  it("reads back every note transitionEvents writes", () => {
    const transitions = [
      transition("Ready", "False", "True", "AllConditionsNormal", "3/3 up: all (good)"),
      transition("example.com/Synced", undefined, "Unknown", "Creating", ""),
      transition("Degraded", "False", undefined),
    ];
    const parsed = transitions.map((t) => parseTransitionNote(transitionEvents(App, [t])[0]?.note ?? ""));
    assert.deepEqual(parsed, [
      {
        condition: "Ready",
        from: "False",
        to: "True",
        reason: "AllConditionsNormal",
        message: "3/3 up: all (good)",
      },
      { condition: "example.com/Synced", from: "Absent", to: "Unknown", reason: "Creating" },
      { condition: "Degraded", from: "False", to: "Absent" },
    ]);
  });

  it("is undefined for notes of other events", () => {
    assert.equal(parseTransitionNote("Scaled up replica set web-5d8f to 3"), undefined);
    assert.equal(parseTransitionNote("Ready: maybe → True"), undefined);
  });
});
