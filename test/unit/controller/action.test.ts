import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Action, InvalidRequeueError, TerminalError } from "../../../src/controller/index.ts";
import { KubeloopError } from "../../../src/errors/index.ts";

describe("Action", () => {
  it("requeueAfter carries the delay", () => {
    assert.equal(Action.requeueAfter(1_500).requeueAfterMs, 1_500);
    assert.equal(Action.requeueAfter(0).requeueAfterMs, 0);
  });

  it("requeueAfter rejects negative, infinite and non-numbers with KL_INVALID_REQUEUE", () => {
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(
        () => Action.requeueAfter(bad),
        (err) =>
          err instanceof InvalidRequeueError &&
          err.code === "KL_INVALID_REQUEUE" &&
          Object.is(err.ms, bad) &&
          /finite number of milliseconds >= 0.*Action\.requeueAfter\(30_000\)/.test(err.message),
      );
    }
  });

  it("awaitChange has no delay", () => {
    assert.equal(Action.awaitChange().requeueAfterMs, undefined);
  });
});

describe("TerminalError", () => {
  it("is a KubeloopError with code KL_TERMINAL that keeps its cause", () => {
    const cause = new Error("spec.size must be positive");
    const err = new TerminalError("invalid widget", { cause });
    assert.ok(err instanceof KubeloopError);
    assert.ok(err instanceof TerminalError);
    assert.equal(err.code, "KL_TERMINAL");
    assert.equal(err.message, "invalid widget");
    assert.equal(err.cause, cause);
    assert.equal(err.name, "TerminalError");
  });
});
