import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { findCondition } from "kubeloop";
import { FakeClock } from "kubeloop/clock";
import type { ConditionReport } from "kubeloop/status";
import type { MyProxyObject } from "../../api.ts";
import { MyProxyConditions } from "../../conditions.ts";
import {
  availableReport,
  type ProxyObservation,
  podNames,
  progressingReport,
  proxyStatus,
  routesAdmittedReport,
} from "../../status.ts";
import { condition, deployment, pod } from "./fixtures.ts";

const complete = deployment(2, {
  observedGeneration: 1,
  replicas: 2,
  updatedReplicas: 2,
  readyReplicas: 2,
  availableReplicas: 2,
  conditions: [
    condition("Available", "True", "MinimumReplicasAvailable"),
    condition("Progressing", "True", "NewReplicaSetAvailable"),
  ],
});

describe("podNames", () => {
  it("lists pods that are neither terminating nor finished, sorted", () => {
    const pods = [
      pod("edge-c", "Running"),
      pod("edge-a", "Pending"),
      pod("edge-b", "Running", true),
      pod("edge-d", "Succeeded"),
      pod("edge-e", "Failed"),
    ];
    assert.deepEqual(podNames(pods), ["edge-a", "edge-c"]);
  });
});

/** The ReplicaFailure a Deployment copies from its ReplicaSet when a quota refuses its pods. */
const podsQuota =
  'pods "edge-5d9f7c8b9-x2x7q" is forbidden: exceeded quota: no-pods, requested: pods=1, used: pods=0, limited: pods=0';
const noPods = deployment(2, {
  observedGeneration: 1,
  conditions: [
    condition(
      "Available",
      "False",
      "MinimumReplicasUnavailable",
      "Deployment does not have minimum availability.",
    ),
    condition("Progressing", "True", "NewReplicaSetCreated", 'Created new replica set "edge-5d9f7c8b9"'),
    condition("ReplicaFailure", "True", "FailedCreate", podsQuota),
  ],
});

describe("availableReport", () => {
  it("is Unknown without a Deployment, or before the Deployment reports availability", () => {
    assert.equal(availableReport(undefined).reason, "DeploymentNotFound");
    const fresh = availableReport(deployment(2, {}));
    assert.deepEqual([fresh.status, fresh.reason], ["Unknown", "DeploymentNotObserved"]);
  });

  it("follows the Deployment's Available condition and counts ready pods", () => {
    assert.deepEqual(availableReport(complete), {
      status: "True",
      reason: "MinimumReplicasAvailable",
      message: "2/2 pods ready",
    });
    const down = deployment(3, {
      readyReplicas: 1,
      conditions: [condition("Available", "False", "MinimumReplicasUnavailable")],
    });
    assert.deepEqual(availableReport(down), {
      status: "False",
      reason: "MinimumReplicasUnavailable",
      message: "1/3 pods ready",
    });
  });

  it("says why pods are unavailable when the Deployment reports a ReplicaFailure: its reason and message", () => {
    assert.deepEqual(availableReport(noPods), {
      status: "False",
      reason: "FailedCreate",
      message: `0/2 pods ready; Deployment edge: ${podsQuota}`,
    });
  });
});

describe("progressingReport", () => {
  it("is complete when every desired pod runs the current template and is available", () => {
    assert.deepEqual(progressingReport(complete, true), {
      status: "True",
      reason: "RolloutComplete",
      message: "2/2 pods run the current configuration",
    });
  });

  it("is rolling out while the cached Deployment is older than the spec just applied", () => {
    assert.equal(progressingReport(complete, false).reason, "RollingOut");
    const unobserved = deployment(2, { ...complete.status, observedGeneration: 1 }, 2);
    assert.equal(progressingReport(unobserved, true).reason, "RollingOut");
  });

  it("is rolling out while pods are being updated, replaced, removed or becoming available", () => {
    const cases: [number, Partial<NonNullable<typeof complete.status>>, string][] = [
      [2, { updatedReplicas: 1 }, "1/2 pods run the current configuration"],
      [2, { replicas: 3 }, "1 old or surplus pods are being removed"],
      [1, {}, "1 old or surplus pods are being removed"],
      [2, { availableReplicas: 1 }, "1/2 pods are available"],
    ];
    for (const [replicas, change, message] of cases) {
      const report = progressingReport(deployment(replicas, { ...complete.status, ...change }), true);
      assert.deepEqual(report, { status: "True", reason: "RollingOut", message });
    }
  });

  it("is False when the Deployment stopped progressing", () => {
    const stuck = deployment(2, {
      ...complete.status,
      updatedReplicas: 1,
      conditions: [condition("Progressing", "False", "ProgressDeadlineExceeded", "took too long")],
    });
    assert.deepEqual(progressingReport(stuck, true), {
      status: "False",
      reason: "ProgressDeadlineExceeded",
      message: "Deployment edge: took too long",
    });
  });

  it("is False with the Deployment's ReplicaFailure (its ReplicaSet cannot create pods), reason and message", () => {
    assert.deepEqual(progressingReport(noPods, true), {
      status: "False",
      reason: "FailedCreate",
      message: `Deployment edge: ${podsQuota}`,
    });
  });
});

/** An observation of a MyProxy without a Deployment yet (nothing converged), with `overrides`. */
function unconverged(overrides: Partial<ProxyObservation> = {}): ProxyObservation {
  return {
    deployment: undefined,
    deploymentUpToDate: false,
    pods: [],
    acceptedRoutes: 0,
    routesLeftOut: 0,
    configHash: "abc",
    configBytes: 1000,
    ...overrides,
  };
}

describe("proxyStatus", () => {
  it("reports the fields from the Deployment, the pods and the routes", () => {
    const report = proxyStatus({
      deployment: complete,
      deploymentUpToDate: true,
      pods: [pod("edge-2", "Running"), pod("edge-1", "Running")],
      acceptedRoutes: 3,
      routesLeftOut: 0,
      configHash: "abc",
      configBytes: 2048,
    });
    assert.deepEqual(report.fields, {
      podNames: ["edge-1", "edge-2"],
      replicas: 2,
      readyReplicas: 2,
      acceptedRoutes: 3,
      configHash: "abc",
    });
  });

  it("reports a child name taken by an object it does not control as Progressing=False ChildConflict", () => {
    const blocked = "ConfigMap shop/edge-nginx is already controlled by ...";
    const report = proxyStatus(unconverged({ blocked }));
    assert.deepEqual([report.progressing.status, report.progressing.reason], ["False", "ChildConflict"]);
  });

  it("reports a child the apiserver refused as Progressing=False with the refusal's reason and message", () => {
    const refused = {
      reason: "QuotaExceeded",
      message: 'deployments.apps "edge" is forbidden: exceeded quota: q',
    };
    const report = proxyStatus(unconverged({ refused }));
    assert.deepEqual(report.progressing, { status: "False", ...refused });
    assert.equal(report.available.reason, "DeploymentNotFound");
  });
});

describe("routesAdmittedReport", () => {
  it("is True with AllRoutesAdmitted when no route was left out, with the size used", () => {
    assert.deepEqual(routesAdmittedReport({ acceptedRoutes: 3, routesLeftOut: 0, configBytes: 2049 }), {
      status: "True",
      reason: "AllRoutesAdmitted",
      message: "all 3 routes that qualify are in the configuration (3 KiB of 900 KiB)",
    });
  });

  it("is False with ConfigurationFull counting the routes that did not fit", () => {
    const report = routesAdmittedReport({ acceptedRoutes: 250, routesLeftOut: 7, configBytes: 921_000 });
    assert.deepEqual([report.status, report.reason], ["False", "ConfigurationFull"]);
    assert.equal(
      report.message,
      "7 routes did not fit in the configuration (900 KiB of 900 KiB, routes admitted oldest first); " +
        "they report Accepted=False with reason ConfigurationFull",
    );
  });
});

describe("MyProxy's Ready roll-up", () => {
  const proxy: MyProxyObject = {
    apiVersion: "proxy.kubeloop.dev/v1beta1",
    kind: "MyProxy",
    metadata: { name: "edge", namespace: "shop", generation: 3 },
    spec: { replicas: 2, nginx: { image: "nginx", port: 80 } },
  };
  const admitted: ConditionReport = { status: "True", reason: "AllRoutesAdmitted", message: "" };
  const ready = (available: ConditionReport, progressing: ConditionReport, routes = admitted) => {
    const draft = MyProxyConditions.begin(proxy, new FakeClock(Date.UTC(2025, 0, 1)));
    draft.set("Available", available).set("Progressing", progressing).set("RoutesAdmitted", routes);
    const { conditions } = draft.finish().status;
    return [findCondition(conditions, "Ready"), findCondition(conditions, "Reconciling")] as const;
  };
  const up: ConditionReport = {
    status: "True",
    reason: "MinimumReplicasAvailable",
    message: "2/2 pods ready",
  };
  const done: ConditionReport = { status: "True", reason: "RolloutComplete", message: "2/2 pods run it" };

  it("is True once available with the rollout complete, with no Reconciling", () => {
    const [summary, reconciling] = ready(up, done);
    assert.deepEqual([summary?.status, summary?.reason], ["True", "Serving"]);
    assert.equal(summary?.message, "2/2 pods ready; 2/2 pods run it");
    assert.equal(summary?.observedGeneration, 3);
    assert.equal(reconciling, undefined);
  });

  it("stays True when routes did not fit: the MyProxy serves those that did", () => {
    const full: ConditionReport = { status: "False", reason: "ConfigurationFull", message: "7 routes ..." };
    const [summary, reconciling] = ready(up, done, full);
    assert.deepEqual([summary?.status, summary?.reason], ["True", "Serving"]);
    assert.equal(reconciling, undefined);
  });

  it("is Unknown (and Reconciling) while a rollout is under way", () => {
    const [summary, reconciling] = ready(up, { status: "True", reason: "RollingOut", message: "1/2" });
    assert.deepEqual([summary?.status, summary?.reason], ["Unknown", "RollingOut"]);
    assert.deepEqual([reconciling?.status, reconciling?.reason], ["True", "RollingOut"]);
  });

  it("is False when pods are unavailable or the rollout failed", () => {
    const down: ConditionReport = { status: "False", reason: "MinimumReplicasUnavailable", message: "0/2" };
    assert.equal(ready(down, done)[0]?.reason, "MinimumReplicasUnavailable");
    const stuck: ConditionReport = { status: "False", reason: "ProgressDeadlineExceeded", message: "" };
    assert.deepEqual(
      [ready(up, stuck)[0]?.status, ready(up, stuck)[0]?.reason],
      ["False", "ProgressDeadlineExceeded"],
    );
  });

  it("is False with the child's reason when a quota refused the Deployment, or its pods", () => {
    const missing: ConditionReport = { status: "Unknown", reason: "DeploymentNotFound", message: "" };
    const quota: ConditionReport = { status: "False", reason: "QuotaExceeded", message: "exceeded quota: q" };
    const [summary, reconciling] = ready(missing, quota);
    assert.deepEqual(
      [summary?.status, summary?.reason, summary?.message],
      ["False", "QuotaExceeded", "exceeded quota: q"],
    );
    assert.deepEqual(
      [reconciling?.status, reconciling?.reason],
      ["True", "QuotaExceeded"],
      "retried, not stalled",
    );
    const report = proxyStatus(unconverged({ deployment: noPods, deploymentUpToDate: true }));
    const [noPodsSummary] = ready(report.available, report.progressing);
    assert.deepEqual([noPodsSummary?.status, noPodsSummary?.reason], ["False", "FailedCreate"]);
    assert.match(noPodsSummary?.message ?? "", /exceeded quota: no-pods/);
  });

  it("is Unknown while the Deployment is missing", () => {
    const missing: ConditionReport = { status: "Unknown", reason: "DeploymentNotFound", message: "" };
    assert.deepEqual(
      [ready(missing, missing)[0]?.status, ready(missing, missing)[0]?.reason],
      ["Unknown", "DeploymentNotFound"],
    );
  });
});
