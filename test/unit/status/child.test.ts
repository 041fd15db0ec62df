/**
 * A parent's condition from a child in trouble: the child's own failure condition or kstatus
 * `Failed` ({@link childFailure}), and a write of it the apiserver refused ({@link childRefusal}).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ForbiddenError, InvalidError } from "../../../src/client/index.ts";
import { FakeClock } from "../../../src/clock/index.ts";
import { childFailure, childRefusal, type KStatusSubject } from "../../../src/status/index.ts";
import { SCHEDULE_WINDOW_MS } from "../../../src/status/internal/kstatus-builtins.ts";

const CREATED = "2026-01-01T00:00:00Z";

function deployment(conditions: object[], status: object = {}): KStatusSubject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", generation: 1 },
    spec: { replicas: 2 },
    status: { observedGeneration: 1, replicas: 0, conditions, ...status },
  };
}

function job(conditions: object[]): KStatusSubject {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: "nightly" },
    spec: { completions: 2 },
    status: { startTime: CREATED, failed: 2, conditions },
  };
}

const quotaMessage =
  'pods "web-5d9f7c8b9-x2x7q" is forbidden: exceeded quota: no-pods, requested: pods=1, used: pods=0, limited: pods=0';

describe("childFailure", () => {
  it("carries a Deployment's ReplicaFailure up with its reason and message, naming the Deployment", () => {
    const failing = deployment([
      { type: "Available", status: "False", reason: "MinimumReplicasUnavailable", message: "no" },
      { type: "ReplicaFailure", status: "True", reason: "FailedCreate", message: quotaMessage },
    ]);
    assert.deepEqual(childFailure(failing), {
      reason: "FailedCreate",
      message: `Deployment web: ${quotaMessage}`,
    });
  });

  it("says nothing of a Deployment still rolling out, nor of a failure condition that is not True", () => {
    const rolling = deployment([
      { type: "Available", status: "False", reason: "MinimumReplicasUnavailable", message: "no" },
      { type: "Progressing", status: "True", reason: "ReplicaSetUpdated", message: "" },
      { type: "ReplicaFailure", status: "False", reason: "FailedCreate", message: "" },
    ]);
    assert.equal(childFailure(rolling), undefined);
  });

  it("carries a Deployment that gave up progressing, with the Deployment's own message", () => {
    const stuck = deployment([
      {
        type: "Progressing",
        status: "False",
        reason: "ProgressDeadlineExceeded",
        message: 'ReplicaSet "web-5d9f7c8b9" has timed out progressing.',
      },
    ]);
    assert.deepEqual(childFailure(stuck), {
      reason: "ProgressDeadlineExceeded",
      message: 'Deployment web: ReplicaSet "web-5d9f7c8b9" has timed out progressing.',
    });
  });

  it("carries a Job's Failed (or its interim FailureTarget) with the Job's reason, not kstatus's JobFailed", () => {
    const limit = { reason: "BackoffLimitExceeded", message: "Job has reached the specified backoff limit" };
    for (const conditions of [
      [{ type: "FailureTarget", status: "True", ...limit }],
      [
        { type: "FailureTarget", status: "True", ...limit },
        { type: "Failed", status: "True", ...limit },
      ],
    ]) {
      assert.deepEqual(childFailure(job(conditions)), {
        reason: "BackoffLimitExceeded",
        message: "Job nightly: Job has reached the specified backoff limit",
      });
    }
    assert.equal(childFailure(job([{ type: "Complete", status: "True" }])), undefined);
  });

  it("falls back to kstatus Failed: a custom resource Stalled, an unschedulable Pod past its window", () => {
    const stalled = {
      apiVersion: "example.com/v1",
      kind: "Database",
      metadata: { name: "orders" },
      status: {
        conditions: [{ type: "Stalled", status: "True", reason: "InvalidSpec", message: "size < 1" }],
      },
    };
    assert.deepEqual(childFailure(stalled), { reason: "InvalidSpec", message: "Database orders: size < 1" });
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "worker-0", creationTimestamp: CREATED },
      status: {
        phase: "Pending",
        conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable" }],
      },
    };
    const at = (ms: number) => new FakeClock(Date.parse(CREATED) + ms);
    assert.equal(childFailure(pod, at(SCHEDULE_WINDOW_MS - 1000)), undefined, "still within the window");
    assert.deepEqual(childFailure(pod, at(SCHEDULE_WINDOW_MS)), {
      reason: "PodUnschedulable",
      message: "Pod worker-0: Pod could not be scheduled",
    });
  });

  it("gives a reason that is no valid condition reason as ChildFailed, and a condition without one by its type", () => {
    const odd = deployment([
      { type: "ReplicaFailure", status: "True", reason: "failed: create", message: "x" },
    ]);
    assert.equal(childFailure(odd)?.reason, "ChildFailed");
    const bare = deployment([{ type: "ReplicaFailure", status: "True" }]);
    assert.deepEqual(childFailure(bare), { reason: "ReplicaFailure", message: "Deployment web" });
  });
});

function forbidden(message: string): ForbiddenError {
  const status = {
    code: 403,
    reason: "Forbidden",
    message,
    details: { name: "web", group: "apps", kind: "deployments" },
  };
  return new ForbiddenError(status, { method: "POST", path: "/apis/apps/v1/namespaces/shop/deployments" });
}

describe("childRefusal", () => {
  it("names a quota that refused the child, with the apiserver's figures and the fix", () => {
    const message =
      'deployments.apps "web" is forbidden: exceeded quota: no-deployments, requested: count/deployments.apps=1, used: count/deployments.apps=0, limited: count/deployments.apps=0';
    const refused = childRefusal(forbidden(message));
    assert.equal(refused?.reason, "QuotaExceeded");
    assert.ok(refused?.message.startsWith(`${message}; `), refused?.message);
    assert.match(refused?.message ?? "", /raise the quota/);
  });

  it("tells an admission check, and a refusal whose cause the message does not tell", () => {
    const webhook = 'admission webhook "deny.example.com" denied the request: no nginx here';
    assert.equal(childRefusal(forbidden(webhook))?.reason, "AdmissionDenied");
    assert.equal(
      childRefusal(forbidden('deployments.apps "web" is forbidden: not today'))?.reason,
      "ChildRefused",
    );
  });

  it("is no refusal of the child: the operator's RBAC, a namespace being deleted, an invalid child, any other error", () => {
    const rbac =
      'deployments.apps is forbidden: User "system:serviceaccount:ops:myproxy" cannot create resource "deployments" in API group "apps" in the namespace "shop"';
    const terminating =
      'deployments.apps "web" is forbidden: unable to create new content in namespace shop because it is being terminated';
    const invalid = new InvalidError(
      { code: 422, reason: "Invalid", message: "Deployment.apps is invalid" },
      { method: "POST", path: "/" },
    );
    for (const err of [forbidden(rbac), forbidden(terminating), invalid, new Error("exceeded quota")]) {
      assert.equal(childRefusal(err), undefined, String(err));
    }
  });
});
