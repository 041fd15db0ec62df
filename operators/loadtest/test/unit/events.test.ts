import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PodObject } from "kubeloop";
import type { StatusUpdate } from "kubeloop/status";
import { type LoadTestStatus, Reasons } from "../../api.ts";
import { recordUpstreamEvents } from "../../events.ts";
import { loadTest, START } from "./fixtures.ts";

/** A recorder that keeps `type reason: note` of what it is given. */
function recorder() {
  const recorded: string[] = [];
  const record = (type: string) => (_obj: unknown, reason: string, _action: string, note: string) =>
    void recorded.push(`${type} ${reason}: ${note}`);
  return { recorded, ctx: { recorder: { normal: record("Normal"), warning: record("Warning") } } };
}

const pod = (name: string): PodObject => ({ apiVersion: "v1", kind: "Pod", metadata: { name } });

function written(status: LoadTestStatus, completed?: { reason: string; message: string }) {
  const transitions = completed ? [{ type: "Completed", from: "False", to: "True", ...completed }] : [];
  return { status, update: { status: {}, changed: true, transitions } as unknown as StatusUpdate };
}

describe("recordUpstreamEvents", () => {
  it("tells Running for each worker once the start is written, and never again", () => {
    const { recorded, ctx } = recorder();
    const workers = () => [pod("checkout-0-abc"), pod("checkout-1-def")];
    recordUpstreamEvents(ctx, loadTest(), written({ startTime: START }), workers);
    assert.deepEqual(recorded, [
      "Normal Running: Running Load Test worker pod: checkout-0-abc",
      "Normal Running: Running Load Test worker pod: checkout-1-def",
    ]);
    recordUpstreamEvents(ctx, loadTest({}, { startTime: START }), written({ startTime: START }), workers);
    assert.equal(recorded.length, 2, "a test already started is not announced again");
  });

  it("tells Completed when all succeeded, Failed with upstream's note when workers failed", () => {
    const { recorded, ctx } = recorder();
    const started = loadTest({}, { startTime: START });
    const status = { startTime: START };
    recordUpstreamEvents(ctx, started, written(status, { reason: Reasons.Succeeded, message: "" }), () => []);
    recordUpstreamEvents(
      ctx,
      started,
      written(status, { reason: Reasons.WorkersFailed, message: "" }),
      () => [],
    );
    recordUpstreamEvents(
      ctx,
      started,
      written(status, { reason: Reasons.JobFailed, message: "deadline" }),
      () => [],
    );
    assert.deepEqual(recorded, [
      "Normal Completed: Load Test completed",
      "Warning Failed: Load Test completed with failed workers",
      "Warning Failed: Load Test failed: deadline",
    ]);
  });
});
