import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../../src/api/index.ts";
import { internStrings } from "../../../src/cache/index.ts";
import { sharedByInterning } from "../../../src/cache/intern.ts";
import { flush } from "../watch/support.ts";
import { startInformer } from "./support.ts";

/** The metadata of the `i`-th Pod of one ReplicaSet, parsed from its own JSON as a watch gives it. */
function sibling(i: number, extra: Record<string, unknown> = {}): KubeObject {
  const metadata = {
    name: `web-5d8f-${i}`,
    namespace: "ns",
    uid: `pod-uid-${i}`,
    resourceVersion: String(100 + i),
    generation: 1,
    creationTimestamp: `2026-11-02T00:00:0${i}Z`,
    labels: { app: "web", "pod-template-hash": "5d8f" },
    annotations: { "prometheus.io/scrape": "true" },
    ownerReferences: [
      {
        apiVersion: "apps/v1",
        kind: "ReplicaSet",
        name: "web-5d8f",
        uid: "0b8a6e2c-rs-uid",
        controller: true,
        blockOwnerDeletion: true,
      },
    ],
    finalizers: ["example.com/cleanup"],
    ...extra,
  };
  return JSON.parse(JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata }));
}

describe("internStrings", () => {
  it("leaves every field reading as it was", () => {
    const intern = internStrings<KubeObject>();
    const deleting = { deletionTimestamp: "2026-11-02T00:01:00Z", deletionGracePeriodSeconds: 30 };
    for (const obj of [sibling(1), sibling(2), sibling(3, deleting)]) {
      const expected = structuredClone(obj);
      assert.deepEqual(intern(obj), expected);
    }
  });

  it("shares the labels, annotations, ownerReferences and finalizers siblings have alike", () => {
    const intern = internStrings<KubeObject>();
    const [a, b] = [intern(sibling(1)), intern(sibling(2))].map((o) => o.metadata);
    assert.ok(a && b);
    assert.equal(a.labels, b.labels);
    assert.equal(a.annotations, b.annotations);
    assert.equal(a.ownerReferences, b.ownerReferences);
    assert.equal(a.finalizers, b.finalizers);
    assert.notEqual(a, b);
  });

  it("freezes the records, shared or not, so changing one in place throws rather than change its siblings", () => {
    const intern = internStrings<KubeObject>();
    const long = { labels: { app: "web", note: "x".repeat(300) } };
    const [shared, alone] = [intern(sibling(1)), intern(sibling(2, long))].map((o) => o.metadata);
    assert.ok(shared?.labels && shared.ownerReferences?.[0] && shared.finalizers && alone?.labels);
    assert.throws(() => {
      (shared.labels as Record<string, string>).app = "api";
    }, TypeError);
    assert.throws(() => shared.finalizers?.push("another"), TypeError);
    assert.throws(() => {
      (shared.ownerReferences?.[0] as { name: string }).name = "other";
    }, TypeError);
    assert.throws(
      () => {
        (alone.labels as Record<string, string>).app = "api";
      },
      TypeError,
      "a record too long to share is frozen all the same",
    );
    assert.equal(intern(sibling(3)).metadata.labels?.app, "web");
  });

  it("shares an owner reference alone when the lists differ, and no record that differs", () => {
    const intern = internStrings<KubeObject>();
    const a = intern(sibling(1)).metadata;
    const other = { apiVersion: "v1", kind: "ConfigMap", name: "cfg", uid: "cfg-uid" };
    const owners = [...(a.ownerReferences ?? []), other];
    const b = intern(
      sibling(2, { labels: { app: "web", "pod-template-hash": "6e9a" }, ownerReferences: owners }),
    ).metadata;
    assert.equal(b.ownerReferences?.[0], a.ownerReferences?.[0]);
    assert.notEqual(b.ownerReferences, a.ownerReferences);
    assert.deepEqual(b.labels, { app: "web", "pod-template-hash": "6e9a" });
    assert.deepEqual(a.labels, { app: "web", "pod-template-hash": "5d8f" });
  });

  it("shares no record holding a value JSON cannot tell apart, nor one too long to repeat", () => {
    const intern = internStrings<KubeObject>();
    const odd = () => [{ a: undefined }, { n: Number.NaN }, { note: "x".repeat(300) }];
    const annotated = (i: number, annotations: object) => {
      const obj = sibling(i);
      return { ...obj, metadata: { ...obj.metadata, annotations } } as KubeObject;
    };
    const [given, again] = [odd(), odd()];
    const first = given.map((annotations) => intern(annotated(1, annotations)).metadata.annotations);
    const second = again.map((annotations) => intern(annotated(2, annotations)).metadata.annotations);
    for (const [k, annotations] of first.entries()) {
      assert.equal(annotations, given[k], `record ${k} kept as given`);
      assert.notEqual(annotations, second[k], `record ${k} not shared`);
    }
    assert.ok(Object.hasOwn(first[0] ?? {}, "a"), "an undefined value stays a property");
  });

  it("shares no record outside the metadata's labels, annotations, ownerReferences and finalizers", () => {
    type WithSpec = KubeObject & { spec: { labels: object; ports: number[] } };
    const intern = internStrings<WithSpec>();
    const withSpec = (i: number) => ({ ...sibling(i), spec: { labels: { app: "web" }, ports: [80] } });
    const [a, b] = [intern(withSpec(1)), intern(withSpec(2))];
    assert.notEqual(a?.spec.labels, b?.spec.labels);
    assert.notEqual(a?.spec.ports, b?.spec.ports);
  });

  it("keeps at most an eighth of its string bound in records, the least recently used out first", () => {
    const intern = internStrings<KubeObject>(16); // two records
    const labelled = (i: number, app: string) =>
      intern({ apiVersion: "v1", kind: "Pod", metadata: { name: `p${i}`, labels: { app } } }).metadata.labels;
    const web = labelled(1, "web");
    const db = labelled(2, "db");
    assert.equal(labelled(3, "web"), web, "web's record is now the most recently used");
    labelled(4, "cache");
    assert.equal(labelled(5, "web"), web, "web's record stayed");
    assert.notEqual(labelled(6, "db"), db, "db's record left for cache's");
  });
});

describe("sharedByInterning", () => {
  it("shares an owner's uid, which every object of that owner repeats, and never an object's own", () => {
    assert.equal(sharedByInterning("0b8a6e2c-rs-uid", "uid", "ownerReferences"), true);
    assert.equal(sharedByInterning("pod-uid-1", "uid", "metadata"), false);
    assert.equal(sharedByInterning("web-5d8f-1", "name", "metadata"), false);
    assert.equal(sharedByInterning("web-5d8f", "name", "ownerReferences"), true);
  });
});

describe("a metadataOnly informer", () => {
  it("stores each object's metadata reading as sent, without managedFields, sharing what siblings repeat", async (t) => {
    const { client, informer, start } = startInformer(t, { metadataOnly: true });
    const partial = (i: number) => {
      const { metadata } = sibling(i);
      const managedFields = [{ manager: "kube-controller-manager", operation: "Update", fieldsV1: {} }];
      return {
        apiVersion: "meta.k8s.io/v1",
        kind: "PartialObjectMetadata",
        metadata: { ...metadata, managedFields },
      };
    };
    client.page([], "10");
    const stream = client.stream();
    void start();
    await informer.waitForSync();
    stream.send("ADDED", partial(1)).send("ADDED", partial(2));
    await flush();
    const [a, b] = ["ns/web-5d8f-1", "ns/web-5d8f-2"].map((key) => informer.store.get(key));
    assert.deepEqual(a, { apiVersion: "v1", kind: "ConfigMap", metadata: sibling(1).metadata });
    assert.deepEqual(b, { apiVersion: "v1", kind: "ConfigMap", metadata: sibling(2).metadata });
    assert.equal(a?.metadata.labels, b?.metadata.labels);
    assert.equal(a?.metadata.ownerReferences, b?.metadata.ownerReferences);
  });
});
