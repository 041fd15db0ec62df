import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeClock } from "../../../src/clock/index.ts";
import {
  type Condition,
  type ConditionInput,
  findCondition,
  InvalidConditionError,
  setCondition,
} from "../../../src/status/index.ts";

const T0 = "2026-11-22T04:25:53Z";
const EARLIER = "2026-01-01T00:00:00Z";
const SUPPLIED = "2025-06-30T12:00:00Z";

/** A clock whose now is T0 plus 789 ms, so second precision is visible. */
function clockAtT0(): FakeClock {
  return new FakeClock(Date.parse(T0) + 789);
}

function ready(overrides: Partial<Condition> = {}): Condition {
  return {
    type: "Ready",
    status: "True",
    observedGeneration: 1,
    lastTransitionTime: EARLIER,
    reason: "AllGood",
    message: "fine",
    ...overrides,
  };
}

describe("setCondition: absent condition", () => {
  it("appends it with now, at second precision, and returns true", () => {
    const conditions: Condition[] = [];
    const changed = setCondition(
      conditions,
      { type: "Ready", status: "False", reason: "Waiting" },
      clockAtT0(),
    );
    assert.equal(changed, true);
    assert.deepEqual(conditions, [
      { type: "Ready", status: "False", lastTransitionTime: T0, reason: "Waiting", message: "" },
    ]);
  });

  it("appends it with the caller-supplied lastTransitionTime", () => {
    const conditions: Condition[] = [];
    setCondition(
      conditions,
      { type: "Ready", status: "True", reason: "A", lastTransitionTime: SUPPLIED },
      clockAtT0(),
    );
    assert.equal(conditions[0]?.lastTransitionTime, SUPPLIED);
  });

  it("stores a caller-supplied time in UTC at second precision", () => {
    const conditions: Condition[] = [];
    const input: ConditionInput = {
      type: "Ready",
      status: "True",
      reason: "A",
      lastTransitionTime: "2025-06-30T14:00:00.999+02:00",
    };
    setCondition(conditions, input, clockAtT0());
    assert.equal(conditions[0]?.lastTransitionTime, SUPPLIED);
  });

  it("keeps observedGeneration and orders fields like metav1.Condition", () => {
    const conditions: Condition[] = [];
    setCondition(
      conditions,
      { type: "Ready", status: "True", reason: "A", message: "m", observedGeneration: 4 },
      clockAtT0(),
    );
    assert.deepEqual(Object.keys(conditions[0] ?? {}), [
      "type",
      "status",
      "observedGeneration",
      "lastTransitionTime",
      "reason",
      "message",
    ]);
    assert.equal(conditions[0]?.observedGeneration, 4);
  });

  it("appends after the other conditions and leaves them alone", () => {
    const other = ready({ type: "Available" });
    const conditions = [other];
    setCondition(conditions, { type: "Ready", status: "True", reason: "A" }, clockAtT0());
    assert.deepEqual(
      conditions.map((c) => c.type),
      ["Available", "Ready"],
    );
    assert.deepEqual(conditions[0], ready({ type: "Available" }));
  });

  it("copies the input instead of aliasing it", () => {
    const conditions: Condition[] = [];
    const input = { type: "Ready", status: "True" as const, reason: "A" };
    setCondition(conditions, input, clockAtT0());
    input.reason = "Changed";
    assert.equal(conditions[0]?.reason, "A");
  });
});

describe("setCondition: present condition", () => {
  it("with nothing different returns false and changes nothing", () => {
    const conditions = [ready()];
    const changed = setCondition(
      conditions,
      { type: "Ready", status: "True", reason: "AllGood", message: "fine", observedGeneration: 1 },
      clockAtT0(),
    );
    assert.equal(changed, false);
    assert.deepEqual(conditions, [ready()]);
  });

  it("with the same status keeps lastTransitionTime even when the input carries another", () => {
    const conditions = [ready()];
    const changed = setCondition(
      conditions,
      {
        type: "Ready",
        status: "True",
        reason: "AllGood",
        message: "fine",
        observedGeneration: 1,
        lastTransitionTime: SUPPLIED,
      },
      clockAtT0(),
    );
    assert.equal(changed, false);
    assert.equal(conditions[0]?.lastTransitionTime, EARLIER);
  });

  it("with another status updates status and lastTransitionTime to now", () => {
    const conditions = [ready()];
    const changed = setCondition(
      conditions,
      { type: "Ready", status: "False", reason: "AllGood", message: "fine", observedGeneration: 1 },
      clockAtT0(),
    );
    assert.equal(changed, true);
    assert.deepEqual(conditions, [ready({ status: "False", lastTransitionTime: T0 })]);
  });

  it("with another status takes the caller-supplied lastTransitionTime", () => {
    const conditions = [ready()];
    setCondition(
      conditions,
      {
        type: "Ready",
        status: "Unknown",
        reason: "AllGood",
        message: "fine",
        observedGeneration: 1,
        lastTransitionTime: SUPPLIED,
      },
      clockAtT0(),
    );
    assert.deepEqual(conditions, [ready({ status: "Unknown", lastTransitionTime: SUPPLIED })]);
  });

  it("with only another reason copies it without touching lastTransitionTime", () => {
    const conditions = [ready()];
    const changed = setCondition(
      conditions,
      { type: "Ready", status: "True", reason: "Better", message: "fine", observedGeneration: 1 },
      clockAtT0(),
    );
    assert.equal(changed, true);
    assert.deepEqual(conditions, [ready({ reason: "Better" })]);
  });

  it("with only another reason ignores a caller-supplied lastTransitionTime", () => {
    const conditions = [ready()];
    setCondition(
      conditions,
      {
        type: "Ready",
        status: "True",
        reason: "Better",
        message: "fine",
        observedGeneration: 1,
        lastTransitionTime: SUPPLIED,
      },
      clockAtT0(),
    );
    assert.equal(conditions[0]?.lastTransitionTime, EARLIER);
  });

  it("with only another message copies it without touching lastTransitionTime", () => {
    const conditions = [ready()];
    const changed = setCondition(
      conditions,
      { type: "Ready", status: "True", reason: "AllGood", message: "finer", observedGeneration: 1 },
      clockAtT0(),
    );
    assert.equal(changed, true);
    assert.deepEqual(conditions, [ready({ message: "finer" })]);
  });

  it("with only another observedGeneration copies it without touching lastTransitionTime", () => {
    const conditions = [ready()];
    const changed = setCondition(
      conditions,
      { type: "Ready", status: "True", reason: "AllGood", message: "fine", observedGeneration: 2 },
      clockAtT0(),
    );
    assert.equal(changed, true);
    assert.deepEqual(conditions, [ready({ observedGeneration: 2 })]);
  });

  it("with only another observedGeneration ignores a caller-supplied lastTransitionTime", () => {
    const conditions = [ready()];
    setCondition(
      conditions,
      {
        type: "Ready",
        status: "True",
        reason: "AllGood",
        message: "fine",
        observedGeneration: 2,
        lastTransitionTime: SUPPLIED,
      },
      clockAtT0(),
    );
    assert.equal(conditions[0]?.lastTransitionTime, EARLIER);
  });

  it("clears observedGeneration when the input has none, as Go's zero value does", () => {
    const conditions = [ready()];
    const changed = setCondition(
      conditions,
      { type: "Ready", status: "True", reason: "AllGood", message: "fine" },
      clockAtT0(),
    );
    assert.equal(changed, true);
    assert.equal("observedGeneration" in (conditions[0] ?? {}), false);
  });

  it("treats an omitted message as empty", () => {
    const conditions = [ready()];
    setCondition(
      conditions,
      { type: "Ready", status: "True", reason: "AllGood", observedGeneration: 1 },
      clockAtT0(),
    );
    assert.equal(conditions[0]?.message, "");
  });

  it("mutates the list's own entry in place", () => {
    const conditions = [ready({ type: "Available" }), ready()];
    const entry = findCondition(conditions, "Ready");
    setCondition(conditions, { type: "Ready", status: "False", reason: "Broken" }, clockAtT0());
    assert.equal(conditions.length, 2);
    assert.equal(entry?.status, "False");
    assert.equal(conditions[1], entry);
    assert.deepEqual(conditions[0], ready({ type: "Available" }));
  });

  it("uses the system clock when none is given", () => {
    const conditions: Condition[] = [];
    const before = Math.floor(Date.now() / 1000) * 1000;
    setCondition(conditions, { type: "Ready", status: "True", reason: "A" });
    const stamped = Date.parse(conditions[0]?.lastTransitionTime ?? "");
    assert.ok(stamped >= before && stamped <= Date.now());
    assert.match(conditions[0]?.lastTransitionTime ?? "", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it("rejects a caller-supplied time that is not RFC 3339", () => {
    const conditions: Condition[] = [];
    for (const bad of ["yesterday", "2026-11-22", "2026-11-22 04:25:53Z", "2026-13-45T99:00:00Z"]) {
      assert.throws(
        () =>
          setCondition(conditions, { type: "Ready", status: "True", reason: "A", lastTransitionTime: bad }),
        (err: unknown) => err instanceof InvalidConditionError && err.field === "lastTransitionTime",
        bad,
      );
    }
    assert.deepEqual(conditions, []);
  });
});
