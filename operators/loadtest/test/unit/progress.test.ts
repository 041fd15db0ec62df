import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { BuiltinCondition } from "kubeloop/api";
import { formatDuration, jobProgress, type Outcome } from "../../progress.ts";
import { condition, END, job, START } from "./fixtures.ts";

interface Row {
  name: string;
  conditions: BuiltinCondition[];
  counts?: { active?: number; succeeded?: number; failed?: number };
  outcome: Outcome;
}

const running = { active: 2, succeeded: 2 };
const allSucceeded = { succeeded: 4 };
const oneFailed = { succeeded: 3, failed: 1 };

/** Job condition lists as Job controllers of several versions write them, in every order. */
const table: Row[] = [
  { name: "no conditions", conditions: [], counts: running, outcome: "running" },
  { name: "SuccessCriteriaMet alone", conditions: [condition("SuccessCriteriaMet")], outcome: "running" },
  {
    name: "FailureTarget alone",
    conditions: [condition("FailureTarget")],
    counts: oneFailed,
    outcome: "running",
  },
  {
    name: "SuccessCriteriaMet then Complete",
    conditions: [condition("SuccessCriteriaMet"), condition("Complete")],
    counts: allSucceeded,
    outcome: "succeeded",
  },
  {
    name: "Complete then SuccessCriteriaMet",
    conditions: [condition("Complete"), condition("SuccessCriteriaMet")],
    counts: allSucceeded,
    outcome: "succeeded",
  },
  {
    name: "FailureTarget then Failed",
    conditions: [condition("FailureTarget"), condition("Failed")],
    counts: oneFailed,
    outcome: "workersFailed",
  },
  {
    name: "Failed then FailureTarget",
    conditions: [condition("Failed"), condition("FailureTarget")],
    counts: oneFailed,
    outcome: "workersFailed",
  },
  {
    name: "Failed before an unrelated later condition",
    conditions: [condition("Failed"), condition("Suspended", END, "False")],
    counts: oneFailed,
    outcome: "workersFailed",
  },
  {
    name: "Complete=False and Failed=False (status ignored by Artillery)",
    conditions: [condition("Complete", END, "False"), condition("Failed", END, "False")],
    counts: running,
    outcome: "running",
  },
  {
    name: "Failed without a failed worker (a deadline)",
    conditions: [condition("Failed")],
    counts: { succeeded: 2 },
    outcome: "jobFailed",
  },
];

describe("jobProgress", () => {
  for (const row of table) {
    it(`bug 1.7.2: ${row.name} reads as ${row.outcome}`, () => {
      const progress = jobProgress(job({ startTime: START, conditions: row.conditions, ...row.counts }));
      assert.equal(progress.outcome, row.outcome);
      const final = row.outcome !== "running";
      assert.equal(progress.completionTime !== undefined, final, "a completion time exactly when final");
    });
  }

  it("is starting before the Job has a start time", () => {
    assert.equal(jobProgress(job({})).outcome, "starting");
    assert.equal(jobProgress(job(undefined)).outcome, "starting");
  });

  it("copies the counters and the failed indexes", () => {
    const progress = jobProgress(
      job({ startTime: START, active: 1, succeeded: 2, failed: 1, failedIndexes: "3" }),
    );
    assert.deepEqual(
      [progress.count, progress.active, progress.succeeded, progress.failed, progress.failedIndexes],
      [4, 1, 2, 1, "3"],
    );
    assert.equal(progress.image, "artilleryio/artillery:2.0.23");
  });

  it("takes a Complete Job's completion time from status.completionTime", () => {
    const done = job({
      startTime: START,
      completionTime: END,
      succeeded: 4,
      conditions: [condition("Complete", START)],
    });
    assert.equal(jobProgress(done).completionTime, END);
  });

  it("bug 1.7.1: takes a Job failed on failed indexes' completion time from its Failed condition", () => {
    const failed = job({
      startTime: START,
      ...oneFailed,
      conditions: [condition("FailureTarget", START), condition("Failed")],
    });
    const progress = jobProgress(failed);
    assert.equal(progress.completionTime, END);
    assert.equal(progress.terminal?.type, "Failed");
  });
});

describe("formatDuration", () => {
  const cases: [number, string][] = [
    [0, "0s"],
    [45, "45s"],
    [60, "1m"],
    [95, "1m35s"],
    [3600, "1h"],
    [3605, "1h5s"],
    [7384, "2h3m4s"],
  ];
  for (const [seconds, text] of cases) {
    it(`${seconds} s is ${text}`, () => assert.equal(formatDuration(seconds), text));
  }
});
