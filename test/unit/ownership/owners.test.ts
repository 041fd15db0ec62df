import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject, OwnerReference } from "../../../src/api/index.ts";
import {
  AlreadyOwnedError,
  CrossNamespaceOwnerError,
  controllerOf,
  controllerReference,
  isControlledBy,
  setControllerReference,
} from "../../../src/ownership/index.ts";
import { configMap, widget } from "./support.ts";

const ownerRef = (name: string, uid: string, extra: Partial<OwnerReference> = {}): OwnerReference => ({
  apiVersion: "example.com/v1",
  kind: "Widget",
  name,
  uid,
  ...extra,
});

const clusterOwner: KubeObject = {
  apiVersion: "example.com/v1",
  kind: "Cluster",
  metadata: { name: "prod", uid: "uid-c" },
};

describe("controllerReference", () => {
  it("names the owner by apiVersion, kind, name and uid, as controller blocking owner deletion", () => {
    assert.deepEqual(controllerReference(widget()), {
      apiVersion: "example.com/v1",
      kind: "Widget",
      name: "w",
      uid: "uid-w",
      controller: true,
      blockOwnerDeletion: true,
    });
  });
});

describe("setControllerReference", () => {
  it("adds the controller reference to a child in the owner's namespace", () => {
    const child = configMap("c", {});
    setControllerReference(widget(), child);
    assert.deepEqual(child.metadata.ownerReferences, [controllerReference(widget())]);
  });

  it("is idempotent: setting it twice leaves one reference", () => {
    const child = configMap("c", {});
    setControllerReference(widget(), child);
    setControllerReference(widget(), child);
    assert.equal(child.metadata.ownerReferences?.length, 1);
  });

  it("keeps other owners' non-controller references and upgrades the owner's own plain reference", () => {
    const child = configMap(
      "c",
      {},
      {
        ownerReferences: [ownerRef("other", "uid-o", { controller: false }), ownerRef("w", "uid-w")],
      },
    );
    setControllerReference(widget(), child);
    assert.deepEqual(child.metadata.ownerReferences, [
      ownerRef("other", "uid-o", { controller: false }),
      controllerReference(widget()),
    ]);
  });

  it("refuses a child controlled by another object, and leaves it untouched", () => {
    const foreign = ownerRef("other", "uid-o", { controller: true, blockOwnerDeletion: true });
    const child = configMap("c", {}, { ownerReferences: [foreign] });
    const before = structuredClone(child);
    const err = catchError(() => setControllerReference(widget(), child));
    assert.ok(err instanceof AlreadyOwnedError);
    assert.equal(err.code, "KL_ALREADY_OWNED");
    assert.deepEqual(err.controller, foreign);
    assert.match(err.message, /ConfigMap ns\/c is already controlled by Widget other \(uid uid-o\)/);
    assert.deepEqual(child, before);
  });

  it("accepts a child already controlled by the same owner, even under a new name", () => {
    const child = configMap(
      "c",
      {},
      {
        ownerReferences: [ownerRef("old-name", "uid-w", { controller: true })],
      },
    );
    setControllerReference(widget(), child);
    assert.deepEqual(child.metadata.ownerReferences, [controllerReference(widget())]);
  });

  it("rejects an owner in another namespace", () => {
    const child = configMap("c", {}, { namespace: "elsewhere" });
    const err = catchError(() => setControllerReference(widget(), child));
    assert.ok(err instanceof CrossNamespaceOwnerError);
    assert.equal(err.code, "KL_CROSS_NAMESPACE_OWNER");
    assert.match(err.message, /Widget ns\/w cannot own ConfigMap elsewhere\/c/);
    assert.equal(child.metadata.ownerReferences, undefined);
  });

  it("checks namespaces before ownership: a foreign-controlled child in another namespace is cross-namespace", () => {
    const child = configMap(
      "c",
      {},
      {
        namespace: "elsewhere",
        ownerReferences: [ownerRef("other", "uid-o", { controller: true })],
      },
    );
    assert.throws(() => setControllerReference(widget(), child), CrossNamespaceOwnerError);
  });

  it("rejects a namespaced owner of a cluster-scoped child", () => {
    const node = { apiVersion: "v1", kind: "Node", metadata: { name: "n1" } };
    assert.throws(() => setControllerReference(widget(), node), CrossNamespaceOwnerError);
    assert.throws(() => setControllerReference(widget(), node, false), CrossNamespaceOwnerError);
    assert.equal(Object.hasOwn(node.metadata, "ownerReferences"), false);
  });

  it("rejects a cluster-scoped kind even when the child object carries a namespace", () => {
    const odd = { apiVersion: "v1", kind: "Node", metadata: { name: "n1", namespace: "ns" } };
    assert.throws(() => setControllerReference(widget(), odd, false), CrossNamespaceOwnerError);
  });

  it("treats a namespaced child without a namespace as living in the owner's namespace", () => {
    const child = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } };
    setControllerReference(widget(), child, true);
    assert.deepEqual(controllerOf(child), controllerReference(widget()));
  });

  it("lets a cluster-scoped owner control namespaced and cluster-scoped children", () => {
    const namespaced = configMap("c", {}, { namespace: "anywhere" });
    const scoped = { apiVersion: "v1", kind: "PersistentVolume", metadata: { name: "pv" } };
    setControllerReference(clusterOwner, namespaced);
    setControllerReference(clusterOwner, scoped, false);
    assert.equal(controllerOf(namespaced)?.uid, "uid-c");
    assert.equal(controllerOf(scoped)?.uid, "uid-c");
  });
});

describe("controllerOf / isControlledBy", () => {
  it("finds the one reference with controller: true", () => {
    const child = configMap(
      "c",
      {},
      {
        ownerReferences: [
          ownerRef("a", "uid-a"),
          ownerRef("b", "uid-b", { controller: false }),
          ownerRef("w", "uid-w", { controller: true }),
        ],
      },
    );
    assert.equal(controllerOf(child)?.name, "w");
    assert.equal(isControlledBy(child, widget()), true);
    assert.equal(
      isControlledBy(child, widget({ uid: "uid-a" })),
      false,
      "a plain owner is not the controller",
    );
  });

  it("compares by uid, not name: a recreated owner with the same name does not control old children", () => {
    const child = configMap("c", {}, { ownerReferences: [ownerRef("w", "uid-old", { controller: true })] });
    assert.equal(isControlledBy(child, widget({ uid: "uid-new" })), false);
  });

  it("answers undefined / false for objects without a controller", () => {
    const plain = configMap("c", {}, { ownerReferences: [ownerRef("w", "uid-w")] });
    assert.equal(controllerOf(plain), undefined);
    assert.equal(controllerOf(configMap("d", {})), undefined);
    assert.equal(isControlledBy(configMap("d", {}), widget()), false);
  });
});

function catchError(fn: () => void): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return assert.fail("expected an error");
}
