import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject, ManagedFieldsEntry } from "../../../src/api/index.ts";
import { controllerManager, fieldConflicts } from "../../../src/describe/internal/fields.ts";

const ownerUid = "0b1c";

function child(managedFields: ManagedFieldsEntry[]): KubeObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: "edge",
      ownerReferences: [{ apiVersion: "v1", kind: "MyProxy", name: "edge", uid: ownerUid, controller: true }],
      managedFields,
    },
  };
}

const operatorEntry: ManagedFieldsEntry = {
  manager: "myproxy",
  operation: "Apply",
  fieldsV1: {
    "f:metadata": { "f:ownerReferences": { [`k:{"uid":"${ownerUid}"}`]: {} }, "f:labels": { "f:app": {} } },
    "f:spec": {
      "f:replicas": {},
      "f:template": { "f:spec": { "f:containers": { 'k:{"name":"nginx"}': { ".": {}, "f:image": {} } } } },
    },
  },
};

describe("controllerManager", () => {
  it("is the manager that wrote the controller reference", () => {
    const other = {
      manager: "kubectl-edit",
      operation: "Update" as const,
      fieldsV1: { "f:spec": { "f:paused": {} } },
    };
    assert.equal(controllerManager(child([other, operatorEntry])), "myproxy");
  });

  it("is undefined without a controller reference or when no entry holds it", () => {
    assert.equal(
      controllerManager({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } }),
      undefined,
    );
    assert.equal(controllerManager(child([{ manager: "helm", fieldsV1: { "f:data": {} } }])), undefined);
  });
});

describe("fieldConflicts", () => {
  it("names fields of other managers and fields claimed twice, with readable paths", () => {
    const obj = child([
      operatorEntry,
      { manager: "kubectl-patch", operation: "Update", fieldsV1: { "f:spec": { "f:paused": {} } } },
      {
        manager: "sidecar-injector",
        operation: "Apply",
        fieldsV1: {
          "f:spec": {
            "f:template": { "f:spec": { "f:containers": { 'k:{"name":"nginx"}': { "f:image": {} } } } },
          },
        },
      },
    ]);
    assert.deepEqual(fieldConflicts(obj, "myproxy"), [
      { field: "spec.paused", managers: ["kubectl-patch"] },
      { field: "spec.template.spec.containers[name=nginx].image", managers: ["myproxy", "sidecar-injector"] },
    ]);
  });

  it("leaves out the built-in controllers' fields and the status subresource", () => {
    const obj = child([
      operatorEntry,
      {
        manager: "kube-controller-manager",
        fieldsV1: { "f:metadata": { "f:annotations": { "f:deployment.kubernetes.io/revision": {} } } },
      },
      { manager: "kubelet", subresource: "status", fieldsV1: { "f:status": { "f:replicas": {} } } },
    ]);
    assert.deepEqual(fieldConflicts(obj, "myproxy"), []);
  });

  it("without a known controller, only fields claimed twice conflict", () => {
    const obj = child([
      { manager: "helm", fieldsV1: { "f:data": { "f:a": {}, "f:b": {} } } },
      {
        manager: "argocd",
        fieldsV1: { "f:data": { "f:b": {} }, "f:metadata": { "f:finalizers": { 'v:"x"': {} } } },
      },
    ]);
    assert.deepEqual(fieldConflicts(obj, undefined), [{ field: "data.b", managers: ["argocd", "helm"] }]);
  });
});
