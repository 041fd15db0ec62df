/**
 * kstatus of built-in kinds: every case of `test/fixtures/kstatus/builtins.json` against what
 * cli-utils v0.37.2 `status.Compute` recorded for it, then what the fixtures cannot hold (the
 * unschedulable window, which needs a clock) and where kubeloop departs from cli-utils on purpose.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import type { ObjectMeta } from "../../../src/api/index.ts";
import { FakeClock } from "../../../src/clock/index.ts";
import { type KStatusResult, type KStatusSubject, kstatus } from "../../../src/status/index.ts";
import { SCHEDULE_WINDOW_MS } from "../../../src/status/internal/kstatus-builtins.ts";

interface Fixture {
  name: string;
  object: KStatusSubject;
  expected: KStatusResult;
}

const fixtures: Fixture[] = JSON.parse(
  readFileSync(new URL("../../fixtures/kstatus/builtins.json", import.meta.url), "utf8"),
).cases;

const created = "2026-01-01T00:00:00Z";
const clock = (msAfterCreation: number) => new FakeClock(Date.parse(created) + msAfterCreation);

describe("kstatus of built-in kinds, as cli-utils v0.37.2 computes it", () => {
  for (const { name, object, expected } of fixtures) {
    it(name, () => assert.deepEqual(kstatus(object, clock(0)), expected));
  }
});

function unschedulablePod(metadata: ObjectMeta = { name: "web", creationTimestamp: created }) {
  const scheduled = { type: "PodScheduled", status: "False", reason: "Unschedulable" };
  return { apiVersion: "v1", kind: "Pod", metadata, status: { phase: "Pending", conditions: [scheduled] } };
}

describe("kstatus of an unschedulable Pod", () => {
  it("is InProgress within the schedule window after creation", () => {
    assert.deepEqual(kstatus(unschedulablePod(), clock(SCHEDULE_WINDOW_MS - 1000)), {
      status: "InProgress",
      reason: "PodNotScheduled",
      message: "Pod has not been scheduled",
    });
  });

  it("is Failed once the window has passed", () => {
    assert.equal(kstatus(unschedulablePod(), clock(SCHEDULE_WINDOW_MS)).status, "Failed");
  });

  it("is Failed without a readable creationTimestamp, as the zero time cli-utils reads then", () => {
    assert.equal(kstatus(unschedulablePod({ name: "web" }), clock(0)).status, "Failed");
  });
});

describe("kstatus of built-in kind names outside their group", () => {
  const pending = { kind: "Pod", metadata: { name: "web" }, status: { phase: "Pending" } };

  it("judges an object without apiVersion by the generic rules, as before built-in rules existed", () => {
    assert.deepEqual(kstatus(pending), { status: "Current", message: "Resource is current" });
  });

  it("judges a malformed apiVersion by the generic rules", () => {
    assert.equal(kstatus({ ...pending, apiVersion: "a/b/v1" }).status, "Current");
  });

  it("applies a core kind's rule only to the core group", () => {
    assert.equal(kstatus({ ...pending, apiVersion: "v1" }).status, "InProgress");
    assert.equal(kstatus({ ...pending, apiVersion: "example.com/v1" }).status, "Current");
  });
});

describe("kstatus where cli-utils returns an error", () => {
  it("is InProgress for a Pod in a phase cli-utils does not know", () => {
    const lost = { apiVersion: "v1", kind: "Pod", metadata: { name: "web" }, status: { phase: "Unknown" } };
    assert.deepEqual(kstatus(lost), {
      status: "InProgress",
      reason: "UnknownPhase",
      message: "unknown phase Unknown",
    });
  });

  it("reads fields of the wrong type as absent, where cli-utils fails or panics", () => {
    const deployment = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web" },
      spec: { replicas: "3" },
      status: { replicas: 1.5, conditions: "Available" },
    };
    assert.deepEqual(kstatus(deployment), {
      status: "InProgress",
      reason: "LessReplicas",
      message: "Replicas: 0/1",
    });
    const containerStatuses = [null, { name: 3, state: { waiting: { reason: "CrashLoopBackOff" } } }];
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "web" } };
    const running = kstatus({ ...pod, status: { phase: "Running", containerStatuses } });
    assert.equal(running.reason, "PodRunningNotReady");
  });
});
