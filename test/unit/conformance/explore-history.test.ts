/**
 * The history-independent oracle on snapshots shaped as the reference operators leave them: what
 * two runs legitimately disagree on (times, a uid-based selector, a digest of content naming the
 * namespace) is not reported; a value that really depends on history is.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../../src/api/index.ts";
import { historyProblems } from "../../../src/testing/conformance/explore/oracles.ts";
import { appliedState } from "../../../src/testing/conformance/internal/fields.ts";
import type { Snapshot } from "../../../src/testing/conformance/internal/world.ts";

interface Run {
  namespace: string;
  uid: string;
  jobUid: string;
  startTime: string;
  completionTime: string;
  duration: string;
  digest: string;
  replicas: number;
  podNames: string[];
}

/** A LoadTest and its ConfigMap, as a run in `run.namespace` leaves them. */
function snapshotOf(run: Run): Snapshot {
  const primary = {
    apiVersion: "kubeloop.dev/v1",
    kind: "LoadTest",
    metadata: { name: "smoke", namespace: run.namespace, uid: run.uid, generation: 3 },
    status: {
      observedGeneration: 3,
      startTime: run.startTime,
      completionTime: run.completionTime,
      duration: run.duration,
      selector: `batch.kubernetes.io/controller-uid=${run.jobUid}`,
      replicas: run.replicas,
      podNames: run.podNames,
    },
  } as KubeObject;
  const config = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: "smoke-config",
      namespace: run.namespace,
      uid: run.jobUid,
      creationTimestamp: run.startTime,
      annotations: { "kubeloop.dev/applied": run.digest },
    },
    data: { "nginx.conf": `# ${run.namespace}/smoke\nworkers ${run.replicas};` },
  } as KubeObject;
  const output = { key: "ConfigMap/smoke-config", owner: "LoadTest/smoke", object: config };
  return {
    namespace: run.namespace,
    primaries: [primary],
    outputs: new Map([[output.key, { ...output, applied: appliedState(config, undefined) }]]),
    strays: [],
  };
}

const fresh: Run = {
  namespace: "kl-explore-fresh-1a2b3c",
  uid: "0b9c6a58-1f0e-4c39-9d0f-5b7e4a2c1d10",
  jobUid: "7d1e2f3a-0000-4c39-9d0f-5b7e4a2c1d10",
  startTime: "2026-11-28T16:01:02Z",
  completionTime: "2026-11-28T16:01:40Z",
  duration: "38s",
  digest: "a1b2c3d4e5f60718",
  replicas: 2,
  podNames: ["smoke-54b548c7bd-6kpqw", "smoke-54b548c7bd-8fq7t"],
};
const explored: Run = {
  namespace: "kl-explore-9f8e7d",
  uid: "5c4d3e2f-aaaa-4bbb-8ccc-0d1e2f3a4b5c",
  jobUid: "11223344-5566-4777-8899-aabbccddeeff",
  startTime: "2026-11-28T15:58:00Z",
  completionTime: "2026-11-28T15:58:31Z",
  duration: "31s",
  digest: "0f1e2d3c4b5a6978",
  replicas: 2,
  podNames: ["smoke-5fc68f87c7-7z9r9", "smoke-5fc68f87c7-l29qt"],
};

describe("history-independent oracle", () => {
  it("leaves out times, durations, uid-based values, digests and generated names, which differ between any two runs", () => {
    assert.deepEqual(historyProblems(snapshotOf(fresh), snapshotOf(explored)), []);
  });

  it("still reports a status value that depends on history", () => {
    const problems = historyProblems(snapshotOf(fresh), snapshotOf({ ...explored, replicas: 3 }));
    assert.ok(
      problems.some((p) => p.startsWith("LoadTest/smoke status:") && p.includes("replicas")),
      problems.join("\n"),
    );
  });

  it("still reports an output's content that depends on history, though its digest is left out", () => {
    const problems = historyProblems(snapshotOf(fresh), snapshotOf({ ...explored, replicas: 3 }));
    assert.ok(
      problems.some((p) => p.startsWith("ConfigMap/smoke-config:") && p.includes("nginx.conf")),
      problems.join("\n"),
    );
  });

  it("still counts generated names: a pod more is reported", () => {
    const podNames = [...explored.podNames, "smoke-5fc68f87c7-x2b4n"];
    const problems = historyProblems(snapshotOf(fresh), snapshotOf({ ...explored, podNames }));
    assert.ok(
      problems.some((p) => p.startsWith("LoadTest/smoke status:") && p.includes("podNames")),
      problems.join("\n"),
    );
  });

  it("compares names a user chose, though they end in a dash and five letters", () => {
    const podNames = ["smoke-nginx", "smoke-proxy"];
    const problems = historyProblems(
      snapshotOf({ ...fresh, podNames }),
      snapshotOf({ ...explored, podNames: ["smoke-nginx", "smoke-cache"] }),
    );
    assert.ok(
      problems.some((p) => p.includes("podNames")),
      problems.join("\n"),
    );
  });

  it("compares outputs named by generateName by prefix and rank: another name is no difference, a second one is", () => {
    const withLabels = (snap: Snapshot, ...names: string[]): Snapshot => {
      const outputs = new Map(snap.outputs);
      for (const name of names) {
        const object = {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name, namespace: snap.namespace, uid: `uid-${name}` },
          data: { message: "hello" },
        } as KubeObject;
        const key = `ConfigMap/${name}`;
        outputs.set(key, { key, owner: "LoadTest/smoke", object, applied: appliedState(object, undefined) });
      }
      return { ...snap, outputs };
    };
    const one = withLabels(snapshotOf(fresh), "smoke-label-x7kqz");
    assert.deepEqual(historyProblems(one, withLabels(snapshotOf(explored), "smoke-label-b2n4t")), []);
    const problems = historyProblems(
      one,
      withLabels(snapshotOf(explored), "smoke-label-b2n4t", "smoke-label-q9wzd"),
    );
    assert.deepEqual(problems, [
      "ConfigMap/smoke-label-<generated name> #2 is an extra output (a duplicate?)",
    ]);
  });

  it("renames a generated output's name where a status names it in a sentence", () => {
    const naming = (snap: Snapshot, label: string): Snapshot => {
      const [primary] = snap.primaries as [KubeObject & { status: Record<string, unknown> }];
      const status = { ...primary.status, message: `ConfigMap ${label} holds the label` };
      const object = {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: label, namespace: snap.namespace, uid: `uid-${label}` },
      } as KubeObject;
      const key = `ConfigMap/${label}`;
      const outputs = new Map(snap.outputs).set(key, {
        key,
        owner: "LoadTest/smoke",
        object,
        applied: appliedState(object, undefined),
      });
      return { ...snap, primaries: [{ ...primary, status } as KubeObject], outputs };
    };
    const fromFresh = naming(snapshotOf(fresh), "smoke-label-x7kqz");
    assert.deepEqual(historyProblems(fromFresh, naming(snapshotOf(explored), "smoke-label-b2n4t")), []);
  });
});
