import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { eventually } from "../../../src/testing/index.ts";

describe("eventually", () => {
  it("resolves with the first value that is neither undefined nor false, after the check stops throwing", async () => {
    let tries = 0;
    const value = await eventually(
      () => {
        tries++;
        if (tries === 1) throw new Error("not yet");
        return tries === 2 ? false : tries === 3 ? undefined : `done after ${tries}`;
      },
      { intervalMs: 1 },
    );
    assert.equal(value, "done after 4");
  });

  it("keeps 0 and empty strings: only undefined and false mean not yet", async () => {
    assert.equal(await eventually(() => 0, { intervalMs: 1 }), 0);
    assert.equal(await eventually(() => "", { intervalMs: 1 }), "");
  });

  it("fails at its deadline naming what it waited for and the check's last error", async () => {
    await assert.rejects(
      eventually(
        () => {
          throw new Error('configmaps "x" not found');
        },
        { timeoutMs: 30, intervalMs: 5, what: "the ConfigMap x" },
      ),
      (err: Error) =>
        /^timed out after 30 ms waiting for the ConfigMap x; the last try threw: configmaps "x" not found$/.test(
          err.message,
        ) && err.cause instanceof Error,
    );
  });

  it("stops when its signal aborts", async () => {
    const stop = new AbortController();
    const waiting = eventually(() => undefined, { intervalMs: 5, signal: stop.signal });
    stop.abort(new Error("test over"));
    await assert.rejects(waiting, /test over/);
  });
});
