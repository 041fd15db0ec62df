import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { containsDesired, lastForeignWriter, reportDrift } from "../../../src/ownership/index.ts";
import { configMap, entry, fakeRecorder, fakeReport, widget } from "./support.ts";

describe("containsDesired", () => {
  it("compares scalars by value and type", () => {
    assert.equal(containsDesired("a", "a"), true);
    assert.equal(containsDesired(1, 1), true);
    assert.equal(containsDesired(false, false), true);
    assert.equal(containsDesired(1, "1"), false);
    assert.equal(containsDesired("a", undefined), false);
    assert.equal(containsDesired(null, null), true);
    assert.equal(containsDesired(null, undefined), false, "an explicit null is a desired value");
  });

  it("ignores fields only the actual object has (server defaults, other managers' fields)", () => {
    const desired = { spec: { replicas: 2 } };
    const actual = { spec: { replicas: 2, strategy: { type: "RollingUpdate" } }, status: { ready: 1 } };
    assert.equal(containsDesired(desired, actual), true);
  });

  it("finds a differing or missing nested value", () => {
    assert.equal(containsDesired({ a: { b: { c: 1 } } }, { a: { b: { c: 2 } } }), false);
    assert.equal(containsDesired({ a: { b: { c: 1 } } }, { a: {} }), false);
    assert.equal(containsDesired({ a: { b: 1 } }, { a: "flat" }), false);
    assert.equal(containsDesired({ a: {} }, { a: null }), false);
  });

  it("skips desired fields set to undefined", () => {
    assert.equal(containsDesired({ a: 1, b: undefined }, { a: 1 }), true);
  });

  it("requires arrays of the same length whose elements contain the desired ones", () => {
    const desired = { ports: [{ port: 80 }, { port: 443 }] };
    assert.equal(
      containsDesired(desired, {
        ports: [
          { port: 80, protocol: "TCP" },
          { port: 443, protocol: "TCP" },
        ],
      }),
      true,
    );
    assert.equal(containsDesired(desired, { ports: [{ port: 80 }] }), false, "an element missing");
    assert.equal(
      containsDesired(desired, { ports: [{ port: 80 }, { port: 443 }, { port: 8080 }] }),
      false,
      "an element added",
    );
    assert.equal(containsDesired(desired, { ports: [{ port: 443 }, { port: 80 }] }), false, "order matters");
    assert.equal(containsDesired([1], { 0: 1, length: 1 }), false, "an array is not an array-like object");
    assert.equal(containsDesired({ a: { 0: 1 } }, { a: [1] }), true, "an object's keys may index an array");
  });

  it("treats an empty desired object as satisfied by any object", () => {
    assert.equal(containsDesired({}, { anything: true }), true);
    assert.equal(containsDesired({}, "scalar"), false);
  });
});

describe("lastForeignWriter", () => {
  it("picks the most recent entry by time, whatever the order in managedFields", () => {
    const cm = configMap(
      "c",
      {},
      {
        managedFields: [
          entry("helm", "2026-01-01T00:00:05Z"),
          entry("kubectl-edit", "2026-01-01T00:00:09Z"),
          entry("kubectl-client-side-apply", "2026-01-01T00:00:01Z"),
        ],
      },
    );
    assert.deepEqual(lastForeignWriter(cm, "widgets"), {
      manager: "kubectl-edit",
      operation: "Update",
      time: "2026-01-01T00:00:09Z",
    });
  });

  it("excludes the controller's own manager even when it wrote last", () => {
    const cm = configMap(
      "c",
      {},
      {
        managedFields: [
          entry("tamperer", "2026-01-01T00:00:02Z", "Apply"),
          entry("widgets", "2026-01-01T00:00:09Z", "Apply"),
        ],
      },
    );
    assert.deepEqual(lastForeignWriter(cm, "widgets"), {
      manager: "tamperer",
      operation: "Apply",
      time: "2026-01-01T00:00:02Z",
    });
  });

  it("ignores status subresource entries, however recent", () => {
    const cm = configMap(
      "c",
      {},
      {
        managedFields: [
          entry("kubectl-patch", "2026-01-01T00:00:01Z"),
          entry("kube-controller-manager", "2026-01-01T00:00:30Z", "Update", "status"),
        ],
      },
    );
    assert.equal(lastForeignWriter(cm, "widgets")?.manager, "kubectl-patch");
  });

  it("ignores entries without a manager, and defaults a missing operation to Update", () => {
    const cm = configMap(
      "c",
      {},
      {
        managedFields: [{ operation: "Apply", time: "2026-01-01T00:00:09Z" }, { manager: "old-tool" }],
      },
    );
    assert.deepEqual(lastForeignWriter(cm, "widgets"), {
      manager: "old-tool",
      operation: "Update",
      time: undefined,
    });
  });

  it("answers undefined when only the controller (or nobody) wrote", () => {
    assert.equal(lastForeignWriter(undefined, "widgets"), undefined);
    assert.equal(lastForeignWriter(configMap("c", {}), "widgets"), undefined);
    const own = configMap(
      "c",
      {},
      {
        managedFields: [
          entry("widgets", "2026-01-01T00:00:01Z"),
          entry("x", "2026-01-01T00:00:02Z", "Update", "status"),
        ],
      },
    );
    assert.equal(lastForeignWriter(own, "widgets"), undefined);
  });

  it("does not reorder the object's managedFields", () => {
    const fields = [entry("b", "2026-01-01T00:00:09Z"), entry("a", "2026-01-01T00:00:01Z")];
    const cm = configMap("c", {}, { managedFields: fields });
    lastForeignWriter(cm, "widgets");
    assert.deepEqual(
      cm.metadata.managedFields?.map((e) => e.manager),
      ["b", "a"],
    );
  });
});

describe("reportDrift", () => {
  it("records a Warning DriftRepaired on the owner naming the writer and operation, and counts it", () => {
    const { recorder, events } = fakeRecorder();
    const { report, drifts } = fakeReport();
    const owner = widget();
    const child = configMap("w-config", {});
    reportDrift({ recorder, report }, owner, child, "modified", {
      manager: "kubectl-edit",
      operation: "Update",
      time: "2026-01-01T00:00:09Z",
    });
    assert.deepEqual(events, [
      {
        type: "Warning",
        regarding: owner,
        reason: "DriftRepaired",
        action: "Repair",
        note: "ConfigMap w-config was modified by kubectl-edit (Update at 2026-01-01T00:00:09Z); restored it",
        related: child,
      },
    ]);
    assert.deepEqual(drifts, [["ConfigMap", "kubectl-edit"]]);
  });

  it("reports a deletion with the last foreign writer when one is known", () => {
    const { recorder, events } = fakeRecorder();
    const { report, drifts } = fakeReport();
    reportDrift({ recorder, report }, widget(), configMap("w-config", {}), "deleted", {
      manager: "helm",
      operation: "Apply",
    });
    assert.equal(
      events[0]?.note,
      "ConfigMap w-config was deleted (deleted by someone other than this controller; last changed by helm); restored it",
    );
    assert.deepEqual(drifts, [["ConfigMap", "helm"]]);
  });

  it("reports a deletion by an unknown actor as manager unknown", () => {
    const { recorder, events } = fakeRecorder();
    const { report, drifts } = fakeReport();
    reportDrift({ recorder, report }, widget(), configMap("w-config", {}), "deleted", undefined);
    assert.equal(events[0]?.reason, "DriftRepaired");
    assert.equal(
      events[0]?.note,
      "ConfigMap w-config was deleted (deleted by someone other than this controller); restored it",
    );
    assert.deepEqual(drifts, [["ConfigMap", "unknown"]]);
  });
});

it("an entry without a time (a write through /scale) counts as the most recent writer", () => {
  const obj = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: "web",
      managedFields: [
        { manager: "kubectl-edit", operation: "Update" as const, time: "2026-11-22T05:00:00Z" },
        { manager: "kubectl", operation: "Update" as const, subresource: "scale" },
        { manager: "owner", operation: "Apply" as const, time: "2026-11-22T05:10:00Z" },
      ],
    },
  };
  assert.deepEqual(lastForeignWriter(obj, "owner"), {
    manager: "kubectl",
    operation: "Update",
    time: undefined,
  });
});
