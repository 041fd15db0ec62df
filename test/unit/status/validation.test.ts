import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeClock } from "../../../src/clock/index.ts";
import { KubeloopError } from "../../../src/errors/index.ts";
import {
  type Condition,
  type ConditionStatus,
  InvalidConditionError,
  MAX_MESSAGE_LENGTH,
  MAX_REASON_LENGTH,
  MAX_TYPE_LENGTH,
  setCondition,
  TRUNCATION_MARKER,
  truncateMessage,
  validateConditionType,
  validateReason,
} from "../../../src/status/index.ts";

const prefix253 = `${"a".repeat(61)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(63)}`;
const longestType = `${prefix253}/${"T".repeat(62)}`;

function rejects(fn: () => unknown, field: string, value: unknown): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof InvalidConditionError);
    assert.ok(err instanceof KubeloopError);
    assert.equal(err.code, "KL_INVALID_CONDITION");
    assert.equal(err.field, field);
    assert.equal(err.value, value);
    return true;
  });
}

describe("condition type", () => {
  it("has the metav1 limit", () => {
    assert.equal(prefix253.length, 253);
    assert.equal(longestType.length, MAX_TYPE_LENGTH);
  });

  for (const type of [
    "Ready",
    "A",
    "ready",
    "Ready2",
    "Pod_Scheduled",
    "a.b",
    "example.com/DatabaseReady",
    "x/Y",
    longestType,
  ]) {
    it(`accepts ${type.slice(0, 40)}`, () => {
      assert.doesNotThrow(() => validateConditionType(type));
    });
  }

  const invalid = [
    "",
    "-Ready",
    "Ready-",
    "Ready.",
    "Has Space",
    "Ready!",
    "Example.com/Ready",
    "example.com/",
    "/Ready",
    "a/b/c",
    "-bad.com/Ready",
    `${longestType}T`,
    "T".repeat(MAX_TYPE_LENGTH + 1),
  ];
  for (const type of invalid) {
    it(`rejects ${JSON.stringify(type.slice(0, 40))}`, () => {
      rejects(() => validateConditionType(type), "type", type);
    });
  }

  it("rejects a non-string", () => {
    rejects(() => validateConditionType(42), "type", 42);
  });

  it("names the value, the rule and a valid example", () => {
    assert.throws(
      () => validateConditionType("has space"),
      (err: Error) =>
        err.message.includes('"has space"') &&
        err.message.includes("CamelCase or <dns-subdomain>/CamelCase") &&
        err.message.includes(`at most ${MAX_TYPE_LENGTH} characters`) &&
        err.message.includes('"Ready"'),
    );
  });

  it("is checked by setCondition before the list changes", () => {
    const conditions: Condition[] = [];
    rejects(
      () => setCondition(conditions, { type: "not valid", status: "True", reason: "A" }),
      "type",
      "not valid",
    );
    assert.deepEqual(conditions, []);
  });
});

describe("reason", () => {
  for (const reason of [
    "A",
    "MinimumReplicasAvailable",
    "Foo_Bar",
    "a:b,c_1",
    "Reason_",
    "R".repeat(MAX_REASON_LENGTH),
  ]) {
    it(`accepts ${reason.slice(0, 40)}`, () => {
      assert.doesNotThrow(() => validateReason(reason));
    });
  }

  for (const reason of [
    "",
    "1Reason",
    "_Reason",
    "Reason:",
    "Reason,",
    "Has Space",
    "Has-Dash",
    "Dot.Ted",
    "R".repeat(MAX_REASON_LENGTH + 1),
  ]) {
    it(`rejects ${JSON.stringify(reason.slice(0, 40))}`, () => {
      rejects(() => validateReason(reason), "reason", reason);
    });
  }

  it("names the value, the rule and a valid example", () => {
    assert.throws(
      () => validateReason("Not-Camel"),
      (err: Error) =>
        err.message.includes('"Not-Camel"') &&
        err.message.includes(`1 to ${MAX_REASON_LENGTH} characters`) &&
        err.message.includes('"MinimumReplicasAvailable"'),
    );
  });

  it("shows a long bad value cut short, with its length", () => {
    const reason = `${"R".repeat(2000)}-`;
    assert.throws(
      () => validateReason(reason),
      (err: Error) => err.message.includes("(2001 characters)") && err.message.length < 600,
    );
  });

  it("is checked by setCondition", () => {
    rejects(() => setCondition([], { type: "Ready", status: "True", reason: "" }), "reason", "");
  });
});

describe("status and observedGeneration", () => {
  it("rejects a status in the wrong case", () => {
    const status = "true" as ConditionStatus;
    rejects(() => setCondition([], { type: "Ready", status, reason: "A" }), "status", "true");
  });

  for (const generation of [-1, 1.5, Number.NaN]) {
    it(`rejects observedGeneration ${generation}`, () => {
      rejects(
        () =>
          setCondition([], { type: "Ready", status: "True", reason: "A", observedGeneration: generation }),
        "observedGeneration",
        generation,
      );
    });
  }

  it("accepts observedGeneration 0", () => {
    const conditions: Condition[] = [];
    setCondition(
      conditions,
      { type: "Ready", status: "True", reason: "A", observedGeneration: 0 },
      new FakeClock(),
    );
    assert.equal(conditions[0]?.observedGeneration, 0);
  });
});

describe("message", () => {
  it("keeps a message of exactly the limit", () => {
    const message = "m".repeat(MAX_MESSAGE_LENGTH);
    assert.equal(truncateMessage(message), message);
  });

  it("cuts a longer message to the limit and ends it with a visible marker", () => {
    const cut = truncateMessage("m".repeat(MAX_MESSAGE_LENGTH + 1));
    assert.equal(cut.length, MAX_MESSAGE_LENGTH);
    assert.ok(cut.endsWith(TRUNCATION_MARKER));
    assert.equal(
      cut.slice(0, -TRUNCATION_MARKER.length),
      "m".repeat(MAX_MESSAGE_LENGTH - TRUNCATION_MARKER.length),
    );
  });

  it("never splits a surrogate pair", () => {
    const keep = MAX_MESSAGE_LENGTH - TRUNCATION_MARKER.length;
    const cut = truncateMessage(`${"m".repeat(keep - 1)}😀${"m".repeat(100)}`);
    assert.equal(cut, `${"m".repeat(keep - 1)}${TRUNCATION_MARKER}`);
  });

  it("is truncated by setCondition instead of rejected, and a repeat is a no-op", () => {
    const conditions: Condition[] = [];
    const input = { type: "Ready", status: "True" as const, reason: "A", message: "x".repeat(40_000) };
    assert.equal(setCondition(conditions, input, new FakeClock()), true);
    assert.equal(conditions[0]?.message.length, MAX_MESSAGE_LENGTH);
    assert.ok(conditions[0]?.message.endsWith(TRUNCATION_MARKER));
    assert.equal(setCondition(conditions, input, new FakeClock()), false);
  });
});
