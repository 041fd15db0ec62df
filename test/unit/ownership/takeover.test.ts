/**
 * Taking over an exclusive child another field manager wrote (a previous operator, a renamed one):
 * one JSON patch removes what it set beyond the desired object and rewrites the field ownership,
 * the drift is reported once, and the child settles (no read, no write on later reconciles).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Deployment, type DeploymentObject, type ManagedFieldsEntry } from "../../../src/api/index.ts";
import { ConflictError, ForbiddenError } from "../../../src/client/index.ts";
import { controllerReference, ensureChild } from "../../../src/ownership/index.ts";
import { createdByManager } from "./fixtures/taken-over.ts";
import { apiError, childContext, owning, widget } from "./support.ts";

const OWNER = widget();
const OWN = "myproxy";
const NOW = "2026-11-27T20:00:00Z";
const clock = { now: () => Date.parse(NOW) };

/** The captured Deployment, made a child of OWNER, with the given field sets. */
function previousChild(managedFields = createdByManager.metadata.managedFields): DeploymentObject {
  const child = structuredClone(createdByManager);
  child.metadata = { ...child.metadata, namespace: "ns", ownerReferences: [controllerReference(OWNER)] };
  child.metadata.managedFields = structuredClone(managedFields);
  return child;
}

/** What the operator desires: the previous operator's Deployment without its env and defaults. */
function desired(): DeploymentObject {
  const { spec } = previousChild();
  const [nginx] = spec?.template.spec?.containers ?? [];
  assert.ok(spec && nginx);
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "ns", labels: spec.template.metadata?.labels },
    spec: {
      replicas: spec.replicas,
      selector: spec.selector,
      template: {
        metadata: { labels: spec.template.metadata?.labels },
        spec: {
          containers: [
            {
              name: nginx.name,
              image: nginx.image,
              ports: [{ name: "http", containerPort: 8080 }],
              volumeMounts: nginx.volumeMounts,
            },
          ],
          volumes: [{ name: "config", configMap: { name: "web-nginx" } }],
        },
      },
    },
  };
}

/** The cache's summary of `obj`: who wrote, not what. */
function cached(obj: DeploymentObject): DeploymentObject {
  const summary = (obj.metadata.managedFields ?? []).map(({ manager, operation, time }) => ({
    manager,
    operation,
    time,
  }));
  return { ...obj, metadata: { ...obj.metadata, managedFields: summary } };
}

const opsOf = (patch: unknown) => (patch as { op: string; path: string; value?: unknown }[]) ?? [];

describe("ensureChild taking over a child another manager wrote", () => {
  it("takes over a Deployment a previous operator created (plain create, `.` keys in its field sets): one patch, drift reported once, then settled", async () => {
    const live = previousChild();
    const { ctx, applies, patches, gets, drifts, events } = childContext({
      stored: [cached(live)],
      server: [live],
      fieldManager: OWN,
      clock,
    });
    assert.equal(await ensureChild(ctx, OWNER, Deployment, desired()), "updated");
    assert.equal(applies.length, 0, "the desired fields already match");
    assert.equal(patches.length, 1);
    const ops = opsOf(patches[0]?.patch);
    assert.deepEqual(ops[0], { op: "replace", path: "/metadata/resourceVersion", value: "475" });
    assert.ok(ops.some((o) => o.op === "remove" && o.path === "/spec/template/spec/containers/0/env"));
    const rewrite = ops.at(-1);
    assert.equal(rewrite?.path, "/metadata/managedFields");
    const fields = rewrite?.value as ManagedFieldsEntry[];
    const creator = fields.find((e) => e.manager === "manager");
    assert.deepEqual(Object.keys(creator?.fieldsV1 ?? {}), ["f:metadata"], "the creator claims no content");
    const ours = fields.find((e) => e.manager === OWN);
    assert.deepEqual([ours?.operation, ours?.time], ["Apply", NOW]);
    assert.deepEqual(drifts, [["Deployment", "manager"]]);
    assert.match(events[0]?.note ?? "", /^Deployment web was modified by manager \(Update at /);

    for (let i = 0; i < 3; i++) await ensureChild(ctx, OWNER, Deployment, desired());
    assert.deepEqual([gets.length, patches.length, drifts.length], [1, 1, 1], "settled: no read, no write");
  });

  it("moves the claims of a previous owner that sets only what the operator desires, without reporting drift", async () => {
    const renamed = owning("old-name", "2026-11-27T19:00:00Z", { "f:spec": { "f:replicas": {} } }, "Apply");
    const live = previousChild([{ ...renamed, apiVersion: "apps/v1" }]);
    const { ctx, patches, drifts } = childContext({
      stored: [cached(live)],
      server: [live],
      fieldManager: OWN,
      clock,
    });
    assert.equal(await ensureChild(ctx, OWNER, Deployment, desired()), "updated");
    assert.deepEqual(opsOf(patches[0]?.patch), [
      { op: "replace", path: "/metadata/resourceVersion", value: "475" },
      {
        op: "replace",
        path: "/metadata/managedFields",
        value: [
          {
            manager: OWN,
            operation: "Apply",
            apiVersion: "apps/v1",
            time: NOW,
            fieldsType: "FieldsV1",
            fieldsV1: { "f:spec": { "f:replicas": {} } },
          },
        ],
      },
    ]);
    assert.deepEqual(drifts, []);
    await ensureChild(ctx, OWNER, Deployment, desired());
    assert.equal(patches.length, 1);
  });

  it("reads the child again and retries when it changed since it was read (a status update), as RetryOnConflict", async () => {
    const live = previousChild();
    const conflict = () => apiError(ConflictError, 409, "Conflict");
    const { ctx, patches, gets, drifts } = childContext({
      stored: [cached(live)],
      server: [live],
      fieldManager: OWN,
      clock,
      patchErrors: [conflict(), conflict()],
    });
    assert.equal(await ensureChild(ctx, OWNER, Deployment, desired()), "updated");
    assert.deepEqual([gets.length, patches.length, drifts.length], [3, 3, 1]);
  });

  it("gives up after five conflicts in a row, and never retries another error", async () => {
    const conflicts = Array.from({ length: 5 }, () => apiError(ConflictError, 409, "Conflict"));
    const busy = childContext({
      stored: [cached(previousChild())],
      server: [previousChild()],
      fieldManager: OWN,
      patchErrors: conflicts,
    });
    await assert.rejects(ensureChild(busy.ctx, OWNER, Deployment, desired()), ConflictError);
    assert.equal(busy.patches.length, 5);
    const refused = apiError(ForbiddenError, 403, "Forbidden");
    const denied = childContext({
      stored: [cached(previousChild())],
      server: [previousChild()],
      fieldManager: OWN,
      patchErrors: [refused],
    });
    await assert.rejects(ensureChild(denied.ctx, OWNER, Deployment, desired()), ForbiddenError);
    assert.equal(denied.patches.length, 1);
  });
});
