import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JobCondition } from "kubeloop/api/batch/v1";
import {
  giveUpOnWorkers,
  humanDuration,
  jobProgress,
  NOT_STARTED_ANNOTATION,
  type Outcome,
  workersStartDeadline,
} from "../../progress.ts";
import { condition, END, job, ms, START } from "./fixtures.ts";

interface Row {
  name: string;
  conditions: JobCondition[];
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

describe("the start timeout of a running Job's workers", () => {
  const timeout = 60;
  const deadline = ms(START) + 60_000;
  it("runs from the Job's start while some worker has not started", () => {
    const stuck = job({ startTime: START, active: 4, ready: 2 });
    assert.equal(workersStartDeadline(stuck, timeout), deadline);
    assert.equal(
      workersStartDeadline(job({ startTime: START, ready: 2, succeeded: 1, failed: 1 }), timeout),
      undefined,
    );
    assert.equal(
      workersStartDeadline(job({ active: 4 }), timeout),
      undefined,
      "not started (held suspended)",
    );
  });

  it("gives up once it ran out and no worker runs; a running worker is waited for", () => {
    const none = job({ startTime: START, active: 4 });
    assert.equal(giveUpOnWorkers(none, timeout, deadline - 1), false);
    assert.equal(giveUpOnWorkers(none, timeout, deadline), true);
    assert.equal(
      giveUpOnWorkers(job({ startTime: START, active: 2, ready: 1, succeeded: 1 }), timeout, deadline),
      false,
    );
    assert.equal(
      giveUpOnWorkers(job({ startTime: START, succeeded: 1, failed: 1 }), timeout, deadline),
      true,
    );
  });

  it("reads a Job the operator gave up on as notStarted, final", () => {
    const given = job({ startTime: START, active: 4 });
    given.metadata.annotations = { [NOT_STARTED_ANNOTATION]: END };
    const progress = jobProgress(given);
    assert.deepEqual([progress.outcome, progress.completionTime], ["notStarted", END]);
    assert.equal(workersStartDeadline(given, timeout), undefined);
  });
});

// The cases of TestHumanDuration and TestHumanDurationBoundaries in k8s.io/apimachinery v0.36.3,
// pkg/util/duration/duration_test.go, in whole seconds.
describe("humanDuration, as Kubernetes' duration.HumanDuration", () => {
  const m = 60;
  const h = 3600;
  const d = 24 * h;
  const y = 365 * d;
  const cases: [number, string][] = [
    [0, "0s"],
    [1, "1s"],
    [70, "70s"],
    [90, "90s"],
    [119, "119s"],
    [2 * m, "2m"],
    [2 * m + 1, "2m1s"],
    [190, "3m10s"],
    [10 * m - 1, "9m59s"],
    [10 * m + 1, "10m"],
    [70 * m, "70m"],
    [3 * h - 1, "179m"],
    [3 * h + m, "3h1m"],
    [8 * h - 1, "7h59m"],
    [8 * h + 59 * m, "8h"],
    [47 * h, "47h"],
    [2 * d, "2d"],
    [49 * h, "2d1h"],
    [8 * d - 1, "7d23h"],
    [8 * d + 23 * h, "8d"],
    [367 * d, "367d"],
    [2 * y - 1, "729d"],
    [2 * y + d - 1, "2y"],
    [2 * y + 25 * h, "2y1d"],
    [8 * y - 1, "7y364d"],
    [8 * y + 364 * d, "8y"],
    [9 * y, "9y"],
  ];
  for (const [seconds, text] of cases) {
    it(`${seconds} s is ${text}`, () => assert.equal(humanDuration(seconds), text));
  }
});
