import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { EventObject } from "../../../src/api/index.ts";
import { conditionTimeline, type TreeEvent, treeEvents } from "../../../src/describe/internal/history.ts";

function event(uid: string, note: string, time: string, extra: Partial<EventObject> = {}): EventObject {
  return {
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: { name: `e-${time}`, creationTimestamp: time },
    eventTime: time,
    regarding: { kind: "MyProxy", name: "edge", namespace: "shop", uid },
    reason: "Reason",
    type: "Normal",
    note,
    reportingController: "myproxy",
    ...extra,
  };
}

describe("treeEvents", () => {
  it("keeps the events of the tree's objects, oldest first, a series at its last occurrence", () => {
    const events = [
      event("a", "late", "2026-01-01T00:00:09.000000Z"),
      event("x", "not in the tree", "2026-01-01T00:00:01.000000Z"),
      event("b", "repeated", "2026-01-01T00:00:02.500000Z", {
        series: { count: 4, lastObservedTime: "2026-01-01T00:00:05.000000Z" },
      }),
      event("a", "core event", "2026-01-01T00:00:03Z", {
        eventTime: undefined,
        deprecatedFirstTimestamp: "2026-01-01T00:00:01Z",
        deprecatedLastTimestamp: "2026-01-01T00:00:03Z",
        deprecatedCount: 2,
      }),
    ];
    const found = treeEvents(events, new Set(["a", "b"]));
    assert.deepEqual(
      found.map((e) => [e.note, e.firstTime, e.time, e.count]),
      [
        ["core event", "2026-01-01T00:00:01Z", "2026-01-01T00:00:03Z", 2],
        ["repeated", "2026-01-01T00:00:02.500000Z", "2026-01-01T00:00:05.000000Z", 4],
        ["late", "2026-01-01T00:00:09.000000Z", "2026-01-01T00:00:09.000000Z", 1],
      ],
    );
    assert.deepEqual(found[0]?.regarding, { kind: "MyProxy", name: "edge", namespace: "shop", uid: "a" });
    assert.equal(found[0]?.reporter, "myproxy");
  });
});

describe("conditionTimeline", () => {
  const told = (note: string, firstTime: string, time = firstTime, count = 1): TreeEvent => ({
    time,
    firstTime,
    count,
    type: "Normal",
    reason: "Reason",
    note,
    regarding: { kind: "MyProxy", name: "edge", uid: "a" },
  });

  it("puts the transitions events tell before the current conditions, oldest first", () => {
    const timeline = conditionTimeline(
      [
        {
          type: "Ready",
          status: "True",
          reason: "Serving",
          message: "2/2",
          lastTransitionTime: "2026-01-01T00:00:10Z",
        },
      ],
      [
        told("Ready: Unknown → False (Unavailable): 0/2", "2026-01-01T00:00:05.200000Z"),
        told("Ready: Absent → Unknown (NotObserved)", "2026-01-01T00:00:01.100000Z"),
        told("Ready: False → True (Serving): 2/2", "2026-01-01T00:00:10.300000Z"),
        told("Scaled up", "2026-01-01T00:00:02Z"),
      ],
    );
    assert.deepEqual(
      timeline.map((e) => [e.time, e.condition, e.from, e.status, e.current]),
      [
        ["2026-01-01T00:00:01.100000Z", "Ready", "Absent", "Unknown", false],
        ["2026-01-01T00:00:05.200000Z", "Ready", "Unknown", "False", false],
        ["2026-01-01T00:00:10Z", "Ready", "False", "True", true],
      ],
    );
  });

  it("puts a condition held now after the events of its second (conditions keep whole seconds)", () => {
    const timeline = conditionTimeline(
      [{ type: "Ready", status: "True", lastTransitionTime: "2026-01-01T00:00:10Z" }],
      [
        told("Ready: Absent → Unknown (NotObserved)", "2026-01-01T00:00:10.100000Z"),
        told("Ready: Unknown → False (Unavailable)", "2026-01-01T00:00:10.200000Z"),
        told("Ready: False → True (Serving)", "2026-01-01T00:00:10.900000Z"),
      ],
    );
    assert.deepEqual(
      timeline.map((e) => [e.from, e.status, e.current]),
      [
        ["Absent", "Unknown", false],
        ["Unknown", "False", false],
        ["False", "True", true],
      ],
    );
  });

  it("counts a repeated transition from its series, and lists a condition no event told at its own time", () => {
    const timeline = conditionTimeline(
      [
        { type: "Stalled", status: "True", reason: "Crash", lastTransitionTime: "2026-01-01T00:00:20Z" },
        { type: "Synced", status: "True" },
      ],
      [told("Stalled: False → True (Crash)", "2026-01-01T00:00:01Z", "2026-01-01T00:00:30Z", 3)],
    );
    assert.deepEqual(timeline, [
      {
        time: "2026-01-01T00:00:20Z",
        condition: "Stalled",
        from: "False",
        status: "True",
        reason: "Crash",
        count: 3,
        current: true,
      },
      { condition: "Synced", status: "True", count: 1, current: true },
    ]);
  });

  it("keeps an older transition to the current status as history", () => {
    const timeline = conditionTimeline(
      [{ type: "Ready", status: "True", lastTransitionTime: "2026-01-01T00:01:00Z" }],
      [
        told("Ready: Unknown → True (Up)", "2026-01-01T00:00:10Z"),
        told("Ready: True → False (Down)", "2026-01-01T00:00:30Z"),
      ],
    );
    assert.deepEqual(
      timeline.map((e) => [e.from, e.status, e.current]),
      [
        ["Unknown", "True", false],
        ["True", "False", false],
        [undefined, "True", true],
      ],
    );
  });
});
