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
import { countingReport, FakeRecorder } from "./writer-support.ts";

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
    const types = transitionEvents(App, [
      transition("Ready", "True", "False", "Down"),
      transition("Ready", "True", "Unknown", "Checking"),
      transition("Available", "True", "False", "Down"),
      transition("Available", "False", "True", "Up"),
      transition("Degraded", "False", "True", "Slow"),
      transition("Degraded", "True", "False", "Fast"),
      transition("Stalled", undefined, "True", "InvalidSpec"),
      transition("example.com/Foreign", "True", "False", "Other"),
    ]).map((e) => e.type);
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

  it("turns a first finish() into events for the summary and the dependents", () => {
    const draft = App.begin(subject(2, { conditions: [stored("Ready", "False")] }), new FakeClock(NOW_MS));
    draft
      .set("Available", { status: "True", reason: "Up" })
      .set("Degraded", { status: "False", reason: "Fine" });
    const notes = transitionEvents(App, draft.finish().transitions).map((e) => e.note);
    assert.deepEqual(notes, [
      "Ready: False → True (AllConditionsNormal)",
      "Available: Absent → True (Up)",
      "Degraded: Absent → False (Fine)",
    ]);
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
    assert.equal(recorder.events.length, 2, "one event per counted transition");
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
    const parsed = transitionEvents(App, transitions).map((e) => parseTransitionNote(e.note));
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
