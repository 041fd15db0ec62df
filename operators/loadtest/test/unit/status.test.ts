import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type Condition, findCondition, kstatus } from "kubeloop";
import { FakeClock } from "kubeloop/clock";
import { LoadTestConditions, type LoadTestObject } from "../../api.ts";
import { NOT_STARTED_ANNOTATION } from "../../progress.ts";
import { describeStatus, type Observation, recheckAfterMs, startTimeoutAt } from "../../status.ts";
import { CREATED, condition, END, job, loadTest, ms, START } from "./fixtures.ts";

const runningJob = job({ startTime: START, active: 2, ready: 2, succeeded: 2 });
const succeededJob = job({
  startTime: START,
  completionTime: END,
  succeeded: 4,
  conditions: [condition("SuccessCriteriaMet"), condition("Complete")],
});
const failedJob = job({
  startTime: START,
  succeeded: 3,
  failed: 1,
  failedIndexes: "1",
  conditions: [condition("FailureTarget"), condition("Failed")],
});

/**
 * Computes the status of `obj` at `at` as `writeStatus` does, and returns the conditions' update,
 * the recheck it asks for, and the object carrying the status.
 */
function pass(obj: LoadTestObject, observation: Observation, at = ms(END) + 60_000) {
  const draft = LoadTestConditions.begin(obj, new FakeClock(at));
  const fields = describeStatus(draft, obj, observation, at);
  const update = draft.finish();
  const status = { ...fields, ...update.status };
  const deadline = startTimeoutAt(obj, observation);
  return { update, recheckAfterMs: recheckAfterMs(status, at, deadline), obj: { ...obj, status } };
}

function get(obj: LoadTestObject, type: string): Condition | undefined {
  return findCondition(obj.status?.conditions ?? [], type);
}

function summary(obj: LoadTestObject, type: string): [string | undefined, string | undefined] {
  const c = get(obj, type);
  return [c?.status, c?.reason];
}

describe("describeStatus", () => {
  it("bug 1.7.1: a Job failed on one worker completes the load test, WorkersFailed with the count", () => {
    const { obj, recheckAfterMs } = pass(loadTest(), { kind: "job", job: failedJob });
    assert.deepEqual(summary(obj, "Completed"), ["True", "WorkersFailed"]);
    assert.match(get(obj, "Completed")?.message ?? "", /1 of 4 workers failed \(indexes 1\); 3 succeeded/);
    assert.deepEqual(summary(obj, "Progressing"), ["False", "WorkersFailed"]);
    assert.deepEqual(summary(obj, "Succeeded"), ["False", "WorkersFailed"]);
    assert.equal(obj.status?.failed, 1);
    assert.equal(obj.status?.completions, "3/4");
    assert.equal(
      obj.status?.completionTime,
      END,
      "from the Failed condition: a failed Job has no completionTime",
    );
    assert.equal(obj.status?.duration, "95s", "as the Artillery operator formatted it");
    assert.equal(recheckAfterMs, undefined, "a finished test is not polled");
    assert.equal(kstatus(obj).status, "Failed", "Stalled=True, not Reconciling forever");
    assert.equal(get(obj, "Reconciling"), undefined);
  });

  it("a succeeded Job completes the load test with Succeeded=True and kstatus Current", () => {
    const { obj, recheckAfterMs } = pass(loadTest(), { kind: "job", job: succeededJob });
    assert.deepEqual(summary(obj, "Completed"), ["True", "Succeeded"]);
    assert.deepEqual(summary(obj, "Progressing"), ["False", "Succeeded"]);
    assert.deepEqual(summary(obj, "Succeeded"), ["True", "Succeeded"]);
    assert.deepEqual(
      [obj.status?.active, obj.status?.succeeded, obj.status?.failed, obj.status?.completions],
      [0, 4, 0, "4/4"],
    );
    assert.deepEqual([obj.status?.startTime, obj.status?.completionTime], [START, END]);
    assert.equal(obj.status?.image, "artilleryio/artillery:2.0.23");
    assert.equal(recheckAfterMs, undefined);
    assert.equal(kstatus(obj).status, "Current");
    assert.equal(get(obj, "Stalled"), undefined);
  });

  it("while workers run: Progressing=True, Completed=False, Succeeded=Unknown, kstatus InProgress", () => {
    const at = ms(START) + 95_000;
    const { obj, recheckAfterMs } = pass(loadTest(), { kind: "job", job: runningJob }, at);
    assert.deepEqual(summary(obj, "Progressing"), ["True", "WorkersRunning"]);
    assert.equal(get(obj, "Progressing")?.message, "2/4 workers succeeded, 2 running");
    assert.deepEqual(summary(obj, "Completed"), ["False", "WorkersRunning"]);
    assert.deepEqual(summary(obj, "Succeeded"), ["Unknown", "WorkersRunning"]);
    assert.deepEqual(summary(obj, "Reconciling"), ["True", "WorkersRunning"]);
    assert.equal(kstatus(obj).status, "InProgress");
    assert.equal(obj.status?.duration, "90s", "95 s shown in 30 s steps");
    assert.equal(obj.status?.completionTime, undefined);
    assert.equal(recheckAfterMs, 25_500, "the next step is 25 s away");
  });

  it("issue 37: Pending workers (active, not ready) count as not started, not as running", () => {
    const at = ms(START) + 10_000;
    const pending = pass(
      loadTest({ count: 2 }),
      { kind: "job", job: job({ startTime: START, active: 2, ready: 0 }, 2) },
      at,
    );
    assert.deepEqual(summary(pending.obj, "Progressing"), ["True", "WorkersStarting"]);
    assert.equal(get(pending.obj, "Progressing")?.message, "0/2 workers succeeded, 0 running, 2 not started");
    assert.deepEqual(summary(pending.obj, "Succeeded"), ["Unknown", "WorkersStarting"]);
    assert.equal(pending.obj.status?.active, 2, "the Job's active, as the Artillery operator reported it");
    assert.equal(kstatus(pending.obj).status, "InProgress");

    const half = job({ startTime: START, active: 2, ready: 1, succeeded: 1, failed: 1, failedIndexes: "3" });
    const { obj } = pass(loadTest(), { kind: "job", job: half }, at);
    assert.deepEqual(summary(obj, "Progressing"), ["True", "WorkersRunning"]);
    assert.equal(
      get(obj, "Progressing")?.message,
      "1/4 workers succeeded, 1 running, 1 not started, 1 failed (indexes 3)",
    );
    const created = pass(loadTest(), { kind: "created" }, at).obj;
    assert.deepEqual(summary(created, "Progressing"), ["True", "WorkersStarting"]);
  });

  it("bug 1.7.5: every condition and the status carry observedGeneration", () => {
    const { obj } = pass(loadTest(), { kind: "job", job: runningJob });
    assert.equal(obj.status?.observedGeneration, 1);
    for (const c of obj.status?.conditions ?? []) assert.equal(c.observedGeneration, 1, c.type);
    const fresh = pass(loadTest(), { kind: "created" }).obj;
    assert.equal(kstatus(fresh).status, "InProgress", "not Current before the test ran");
  });

  it("a missing test script: MissingTestScript, Stalled, Succeeded Unknown (not failed), looked at again at the start timeout", () => {
    const message = "ConfigMap script not found";
    const { obj, recheckAfterMs } = pass(loadTest(), { kind: "missingScript", message });
    assert.deepEqual(summary(obj, "Progressing"), ["False", "MissingTestScript"]);
    assert.deepEqual(summary(obj, "Completed"), ["False", "MissingTestScript"]);
    assert.deepEqual(summary(obj, "Succeeded"), ["Unknown", "MissingTestScript"]);
    assert.deepEqual(summary(obj, "Stalled"), ["True", "MissingTestScript"]);
    assert.equal(get(obj, "Stalled")?.message, message);
    assert.equal(get(obj, "Reconciling"), undefined);
    assert.equal(kstatus(obj).status, "Failed");
    assert.equal(obj.status?.completions, "0/4");
    const timeoutAt = ms(CREATED) + 300_000;
    assert.equal(recheckAfterMs, timeoutAt - (ms(END) + 60_000) + 500, "at the start timeout");
  });

  for (const [kind, reason] of [
    ["conflict", "JobConflict"],
    ["missingScript", "MissingTestScript"],
    ["notAllowed", "WorkerNotAllowed"],
    ["refused", "JobRefused"],
  ] as const) {
    it(`bug 1.7.7, seed 000: ${reason} waits Stalled, then completes without running at the start timeout`, () => {
      const { obj } = pass(loadTest(), { kind, message: "explained" });
      assert.deepEqual(summary(obj, "Progressing"), ["False", reason]);
      assert.deepEqual(summary(obj, "Succeeded"), ["Unknown", reason]);
      assert.deepEqual(summary(obj, "Stalled"), ["True", reason]);
      const late = pass(obj, { kind, message: "explained" }, ms(CREATED) + 300_000);
      assert.deepEqual(summary(late.obj, "Completed"), ["True", reason]);
      assert.deepEqual(summary(late.obj, "Succeeded"), ["False", reason]);
      assert.match(get(late.obj, "Completed")?.message ?? "", /start timeout .* ran out.*: explained$/);
      assert.equal(late.recheckAfterMs, undefined, "a completed test is not looked at again");
      const kept = pass(late.obj, { kind: "jobDeleted" }, ms(CREATED) + 900_000);
      assert.equal(kept.update.changed, false, "and never run afterwards");
    });
  }

  it("an invalid Job completes the test at once: its spec cannot change", () => {
    const { obj, recheckAfterMs } = pass(loadTest(), { kind: "invalid", message: "explained" });
    assert.deepEqual(summary(obj, "Completed"), ["True", "InvalidJob"]);
    assert.deepEqual(summary(obj, "Succeeded"), ["False", "InvalidJob"]);
    assert.deepEqual(summary(obj, "Stalled"), ["True", "InvalidJob"]);
    assert.equal(recheckAfterMs, undefined);
  });

  it("is not polled past the start timeout while a worker still runs (the Job's change brings it back)", () => {
    const slow = job({ startTime: START, active: 2, ready: 1, succeeded: 1 });
    const at = ms(START) + 600_000; // 5 min past the timeout, in the same 30 s duration step
    const { recheckAfterMs } = pass(loadTest(), { kind: "job", job: slow }, at);
    assert.equal(recheckAfterMs, 30_500, "the next duration step, not the deadline already past");
  });

  it("seed 000: workers that never started end the test at the start timeout, WorkersNotStarted", () => {
    const stuck = job({ startTime: START, active: 4, ready: 0 });
    const waiting = pass(loadTest(), { kind: "job", job: stuck });
    assert.deepEqual(summary(waiting.obj, "Progressing"), ["True", "WorkersStarting"]);
    const givenUp = {
      ...stuck,
      metadata: { ...stuck.metadata, annotations: { [NOT_STARTED_ANNOTATION]: END } },
    };
    const { obj, recheckAfterMs } = pass(waiting.obj, { kind: "job", job: givenUp });
    assert.deepEqual(summary(obj, "Completed"), ["True", "WorkersNotStarted"]);
    assert.deepEqual(summary(obj, "Succeeded"), ["False", "WorkersNotStarted"]);
    assert.match(get(obj, "Completed")?.message ?? "", /^4 of 4 workers had not started/);
    assert.equal(obj.status?.completionTime, END);
    assert.equal(recheckAfterMs, undefined);
  });

  it("a completed test whose Job was deleted keeps what it reported", () => {
    const done = pass(loadTest(), { kind: "job", job: failedJob }).obj;
    const later = pass(done, { kind: "jobDeleted" }, ms(END) + 3_600_000);
    assert.equal(later.update.changed, false);
    assert.deepEqual(later.obj.status, done.status);
  });

  it("a status the Artillery operator left, without reasons, is rewritten in the new shape", () => {
    const conditions = [
      { type: "Progressing", status: "False", lastTransitionTime: START },
      { type: "Completed", status: "True", lastTransitionTime: END },
    ];
    const legacy = loadTest({}, {
      startTime: START,
      completionTime: END,
      succeeded: 4,
      completions: "4/4",
      conditions,
    } as unknown as LoadTestObject["status"]);
    const { obj } = pass(legacy, { kind: "jobDeleted" });
    assert.deepEqual(summary(obj, "Completed"), ["True", "Succeeded"]);
    assert.deepEqual(summary(obj, "Succeeded"), ["True", "Succeeded"]);
    assert.equal(get(obj, "Progressing")?.message, "completed under the Artillery operator");
    assert.equal(obj.status?.observedGeneration, 1);
  });

  it("a running test whose Job was deleted ends as JobDeleted and is not started again", () => {
    const started = pass(loadTest(), { kind: "job", job: runningJob }).obj;
    const { obj } = pass(started, { kind: "jobDeleted" });
    assert.deepEqual(summary(obj, "Completed"), ["False", "JobDeleted"]);
    assert.deepEqual(summary(obj, "Succeeded"), ["False", "JobDeleted"]);
    assert.equal(obj.status?.startTime, START);
    assert.deepEqual([obj.status?.active, obj.status?.succeeded], [0, 2], "last seen, none running");
  });
});

describe("lastTransitionTime across passes", () => {
  it("bug 1.7.3: moves only when a status moves, and is the time the Job changed", () => {
    const first = pass(loadTest(), { kind: "created" }, ms(START) - 2_000).obj;
    const created = get(first, "Completed")?.lastTransitionTime;
    const second = pass(first, { kind: "job", job: runningJob }, ms(START) + 40_000).obj;
    assert.equal(get(second, "Completed")?.lastTransitionTime, created, "Completed stayed False");
    assert.equal(get(second, "Progressing")?.reason, "WorkersRunning");
    const third = pass(second, { kind: "job", job: succeededJob }, ms(END) + 30_000).obj;
    assert.equal(get(third, "Completed")?.lastTransitionTime, END, "True since the Job completed");
    assert.equal(get(third, "Progressing")?.lastTransitionTime, END);
    assert.equal(get(third, "Succeeded")?.lastTransitionTime, END);
  });

  it("bug 1.7.4: a finished test computed again later changes nothing (no write, no heartbeat)", () => {
    const done = pass(loadTest(), { kind: "job", job: succeededJob }).obj;
    const again = pass(done, { kind: "job", job: succeededJob }, ms(END) + 86_400_000);
    assert.equal(again.update.changed, false);
    assert.deepEqual(again.update.transitions, []);
    assert.deepEqual(again.obj.status, done.status);
  });

  it("a wiped status is rebuilt identically from a finished Job", () => {
    const done = pass(loadTest(), { kind: "job", job: succeededJob }).obj;
    const rebuilt = pass(loadTest(), { kind: "job", job: succeededJob }, ms(END) + 7_200_000).obj;
    assert.deepEqual(rebuilt.status, done.status);
  });

  it("while running, a pass in the same duration step changes nothing", () => {
    const first = pass(loadTest(), { kind: "job", job: runningJob }, ms(START) + 31_000);
    const second = pass(first.obj, { kind: "job", job: runningJob }, ms(START) + 59_000);
    assert.equal(second.update.changed, false);
    assert.deepEqual(second.obj.status, first.obj.status);
    const third = pass(second.obj, { kind: "job", job: runningJob }, ms(START) + 61_000);
    assert.equal(third.obj.status?.duration, "60s");
    assert.equal(get(third.obj, "Progressing")?.lastTransitionTime, START);
  });
});
