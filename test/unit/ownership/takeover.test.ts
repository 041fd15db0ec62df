/**
 * Taking over an exclusive child another field manager wrote (a previous operator, a renamed one):
 * it carries no fingerprint of this operator's, so it is applied once; then one JSON patch,
 * computed from the apply's answer, removes what the other manager set beyond the desired object
 * and rewrites the field ownership; the drift is reported once, and the child settles (no read,
 * no write on later reconciles).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  Deployment,
  type DeploymentObject,
  Job,
  type JobObject,
  type ManagedFieldsEntry,
} from "../../../src/api/index.ts";
import { summarizeManagedFields } from "../../../src/cache/reflector.ts";
import { ConflictError, ForbiddenError, InvalidError } from "../../../src/client/index.ts";
import { controllerReference, ensureChild, InvalidChildError } from "../../../src/ownership/index.ts";
import { jobWithForeignEnv, templateImmutable } from "./fixtures/immutable-job.ts";
import { createdByManager } from "./fixtures/taken-over.ts";
import { apiError, childContext, owning, widget, writtenFrom } from "./support.ts";

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

/**
 * The cache holding `live` (summarized) and the apiserver holding it whole; the apply answers
 * `live` with its field sets (the apiserver's answer also has the operator's new Apply entry).
 */
function holding<T extends DeploymentObject | JobObject>(
  live: T,
  options: Parameters<typeof childContext>[0] = {},
) {
  const stored = summarizeManagedFields(live);
  const context = childContext({
    stored: [stored],
    server: [live],
    fieldManager: OWN,
    clock,
    applied: () => live,
    ...options,
  });
  /** What the cache sees once the apply's watch event comes: the child stamped with `desired`. */
  const settle = (want: T) => {
    stored.metadata.annotations = writtenFrom(OWNER, want);
  };
  return { ...context, settle };
}

const opsOf = (patch: unknown) => (patch as { op: string; path: string; value?: unknown }[]) ?? [];

describe("ensureChild taking over a child another manager wrote", () => {
  it("takes over a Deployment a previous operator created (plain create, `.` keys in its field sets): one apply and one patch, drift reported once, then settled", async () => {
    const live = previousChild();
    const { ctx, calls, patches, drifts, events, settle } = holding(live);
    assert.equal(await ensureChild(ctx, OWNER, Deployment, desired()), "updated");
    assert.deepEqual(calls, ["apply", "patch"], "the apply's answer has the field sets: no read");
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

    settle(desired());
    for (let i = 0; i < 3; i++) await ensureChild(ctx, OWNER, Deployment, desired());
    assert.deepEqual([calls.length, drifts.length], [2, 1], "settled: no read, no write");
  });

  it("moves the claims of a previous owner that sets only what the operator desires, without reporting drift", async () => {
    const renamed = owning("old-name", "2026-11-27T19:00:00Z", { "f:spec": { "f:replicas": {} } }, "Apply");
    const live = previousChild([{ ...renamed, apiVersion: "apps/v1" }]);
    const { ctx, patches, drifts, settle } = holding(live);
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
    settle(desired());
    await ensureChild(ctx, OWNER, Deployment, desired());
    assert.equal(patches.length, 1);
  });

  it("reads the child again and retries when it changed since it was read (a status update), as RetryOnConflict", async () => {
    const live = previousChild();
    const conflict = () => apiError(ConflictError, 409, "Conflict");
    const { ctx, calls, drifts } = holding(live, { patchErrors: [conflict(), conflict()] });
    assert.equal(await ensureChild(ctx, OWNER, Deployment, desired()), "updated");
    assert.deepEqual(calls, ["apply", "patch", "get", "patch", "get", "patch"]);
    assert.equal(drifts.length, 1);
  });

  it("gives up after five conflicts in a row, and never retries another error", async () => {
    const conflicts = Array.from({ length: 5 }, () => apiError(ConflictError, 409, "Conflict"));
    const busy = holding(previousChild(), { patchErrors: conflicts });
    await assert.rejects(ensureChild(busy.ctx, OWNER, Deployment, desired()), ConflictError);
    assert.equal(busy.patches.length, 5);
    const refused = apiError(ForbiddenError, 403, "Forbidden");
    const denied = holding(previousChild(), { patchErrors: [refused] });
    await assert.rejects(ensureChild(denied.ctx, OWNER, Deployment, desired()), ForbiddenError);
    assert.equal(denied.patches.length, 1);
  });
});

describe("ensureChild and a take-over the apiserver refuses as invalid", () => {
  /** The captured Job, made a child of OWNER. */
  const previousJob = (): JobObject => {
    const job = structuredClone(jobWithForeignEnv);
    job.metadata = { ...job.metadata, namespace: "ns", ownerReferences: [controllerReference(OWNER)] };
    return job;
  };
  /** What the operator desires: the Job without the previous operator's `LEGACY` env entry. */
  const desiredJob = (): JobObject => ({
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: "w-job", namespace: "ns" },
    spec: {
      backoffLimit: 0,
      template: {
        metadata: { labels: { app: "web" } },
        spec: {
          restartPolicy: "Never",
          containers: [
            {
              name: "worker",
              image: "busybox:1.37",
              args: ["true"],
              env: [{ name: "MESSAGE", value: "hello" }],
            },
          ],
        },
      },
    },
  });

  it("throws InvalidChildError naming the child, the fields it could not remove and the fix, and does not retry", async () => {
    const live = previousJob();
    const refused = new InvalidError(templateImmutable, {
      method: "PATCH",
      path: "/apis/batch/v1/namespaces/ns/jobs/w-job",
    });
    const { ctx, patches } = holding(live, { patchErrors: [refused] });
    await assert.rejects(ensureChild(ctx, OWNER, Job, desiredJob()), (err) => {
      assert.ok(err instanceof InvalidChildError);
      assert.equal(err.child, "Job ns/w-job");
      assert.equal(err.cause, refused);
      assert.match(
        err.message,
        /^Job ns\/w-job was refused as invalid when the fields other writers added were removed/,
      );
      assert.match(
        err.message,
        /spec\.template: Invalid value: .{1,200}: field is immutable/,
        "the cause, shortened",
      );
      assert.match(err.message, /spec\.template\.spec\.containers\[0\]\.env\[1\] \(manager\)/);
      assert.match(err.message, /delete Job ns\/w-job so that it is created again/i);
      assert.match(err.message, /exclusive: false/);
      assert.match(err.message, /\{ manager: "manager" \}/);
      return true;
    });
    assert.equal(patches.length, 1);
  });
});
