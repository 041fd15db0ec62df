/**
 * A desired object that stops setting a field: the child carries the fingerprint of what was last
 * written (`kubeloop.dev/applied`), so a changed desired object is applied even when every field it
 * still sets matches, and the create's claims (an `Update` entry under the operator's own name)
 * become its `Apply` entry first, in one patch, so that the apply prunes what was dropped. A
 * settled child is neither read nor written.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Deployment, type DeploymentObject, type ManagedFieldsEntry } from "../../../src/api/index.ts";
import { summarizeManagedFields } from "../../../src/cache/reflector.ts";
import { appliedFrom, controllerReference, ensureChild } from "../../../src/ownership/index.ts";
import { appliedOverCreate, createdByOperator } from "./fixtures/own-create.ts";
import { childContext, widget } from "./support.ts";

const OWNER = widget();
const OWN = "myproxy";
const APPLIED = "kubeloop.dev/applied";
const LABELS = { "app.kubernetes.io/name": "myproxy", "app.kubernetes.io/instance": "web" };

/** What the operator desires: the captured Deployment, or less of it. */
function desired(opts: { mode?: boolean; tier?: boolean; image?: string } = {}): DeploymentObject {
  const { mode = true, tier = true, image = "nginx:1.27" } = opts;
  const env = [{ name: "MESSAGE", value: "hello" }, ...(mode ? [{ name: "MODE", value: "prod" }] : [])];
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "ns", labels: tier ? { ...LABELS, tier: "edge" } : LABELS },
    spec: {
      replicas: 2,
      selector: { matchLabels: LABELS },
      template: {
        metadata: { labels: LABELS },
        spec: { containers: [{ name: "nginx", image, ports: [{ name: "http", containerPort: 8080 }], env }] },
      },
    },
  };
}

/** The fingerprint ensureChild's create stamps on the child of `obj`. */
async function fingerprintOf(obj: DeploymentObject): Promise<string | undefined> {
  const { ctx, creates } = childContext({ fieldManager: OWN });
  await ensureChild(ctx, OWNER, Deployment, obj);
  return creates[0]?.metadata.annotations?.[APPLIED];
}

/** The captured child of OWNER, stamped with `fingerprint`, with the given field sets. */
function child(fingerprint: string | undefined, managedFields: ManagedFieldsEntry[]): DeploymentObject {
  const live = structuredClone(createdByOperator);
  const annotations: Record<string, string> = fingerprint === undefined ? {} : { [APPLIED]: fingerprint };
  live.metadata = {
    ...live.metadata,
    namespace: "ns",
    annotations,
    ownerReferences: [controllerReference(OWNER)],
    managedFields: structuredClone(managedFields),
  };
  return live;
}

/** The cache holding `live` (summarized, as `stored`) and the apiserver holding it whole. */
function holding(live: DeploymentObject, options: Parameters<typeof childContext>[0] = {}) {
  const stored = summarizeManagedFields(live);
  return { stored, ...childContext({ stored: [stored], server: [live], fieldManager: OWN, ...options }) };
}

const created = () => createdByOperator.metadata.managedFields ?? [];
const opsOf = (patch: unknown) => patch as { op: string; path: string; value?: unknown }[];
const ownEntries = (entries: ManagedFieldsEntry[]) => entries.filter((e) => e.manager === OWN);

describe("ensureChild and a desired object that stops setting a field", () => {
  it("stamps a created child with the fingerprint of its desired object, in the create itself", async () => {
    const { ctx, creates, calls } = childContext({ fieldManager: OWN });
    assert.equal(await ensureChild(ctx, OWNER, Deployment, desired()), "created");
    assert.deepEqual(calls, ["create"], "no other request");
    const stamp = creates[0]?.metadata.annotations?.[APPLIED];
    assert.match(stamp ?? "", /^[0-9a-f]{16}$/);

    // What names the child is left out: under an owner created again (another uid), the same.
    const again = childContext({ fieldManager: OWN });
    await ensureChild(again.ctx, widget({ uid: "uid-w-again" }), Deployment, desired());
    assert.equal(again.creates[0]?.metadata.annotations?.[APPLIED], stamp);

    // The same object written with its keys in another order is the same; any change is not.
    const reordered = desired();
    reordered.metadata = { labels: reordered.metadata.labels, namespace: "ns", name: "web" };
    assert.equal(await fingerprintOf(reordered), stamp);
    assert.notEqual(await fingerprintOf(desired({ mode: false })), stamp);
    assert.notEqual(await fingerprintOf(desired({ tier: false })), stamp);
  });

  it("neither reads nor writes a settled child (its fingerprint is the desired object's), however often it reconciles", async () => {
    const live = child(await fingerprintOf(desired()), created());
    const { ctx, calls } = holding(live);
    for (let i = 0; i < 3; i++)
      assert.equal(await ensureChild(ctx, OWNER, Deployment, desired()), "unchanged");
    assert.deepEqual(calls, []);
  });

  it("prunes an env entry and a label the desired object dropped: the create's claims become the operator's Apply entry in one patch, then the apply", async () => {
    const live = child(await fingerprintOf(desired()), created());
    const { ctx, calls, patches, applies, drifts } = holding(live);
    assert.equal(await ensureChild(ctx, OWNER, Deployment, desired({ mode: false, tier: false })), "updated");
    assert.deepEqual(calls, ["get", "patch", "apply"]);

    const ops = opsOf(patches[0]?.patch);
    assert.deepEqual(ops[0], { op: "replace", path: "/metadata/resourceVersion", value: "377" });
    assert.deepEqual(ops.slice(1), [
      {
        op: "replace",
        path: "/metadata/managedFields",
        // As client-go's csaupgrade: the create's entry, turned into an Apply entry in place.
        value: created().map((e) => (e.manager === OWN ? { ...e, operation: "Apply" } : e)),
      },
    ]);

    const body = applies[0]?.obj as DeploymentObject;
    assert.deepEqual(body.spec?.template.spec?.containers[0]?.env, [{ name: "MESSAGE", value: "hello" }]);
    assert.deepEqual(body.metadata.labels, LABELS);
    assert.equal(
      body.metadata.annotations?.[APPLIED],
      await fingerprintOf(desired({ mode: false, tier: false })),
    );
    assert.deepEqual(drifts, [], "a change of the desired object is no drift");
  });

  it("writes nothing when the cache is behind its own write: the claims merged, the apply's event still to come", async () => {
    const live = child(await fingerprintOf(desired()), created());
    const slim = desired({ mode: false, tier: false });
    const merged = created().map((e) => (e.manager === OWN ? { ...e, operation: "Apply" as const } : e));
    const answer = child(await fingerprintOf(slim), merged);
    answer.metadata.resourceVersion = "379";
    // The claims merge answers version 377, the apply 379.
    const { ctx, calls, stored } = holding(live, { applied: () => answer });
    await ensureChild(ctx, OWNER, Deployment, slim);
    assert.deepEqual(calls, ["get", "patch", "apply"]);

    // The merge's event came first: its reconcile sees version 377, which the apply replaced.
    assert.equal(await ensureChild(ctx, OWNER, Deployment, slim), "unchanged");
    assert.equal(calls.length, 3, "neither read nor written");

    // Then the apply's event: the cache holds what it wrote, settled.
    const container = stored.spec?.template.spec?.containers[0];
    assert.ok(container);
    container.env = [{ name: "MESSAGE", value: "hello" }];
    stored.metadata = { ...stored.metadata, ...summarizeManagedFields(answer).metadata, labels: LABELS };
    assert.equal(await ensureChild(ctx, OWNER, Deployment, slim), "unchanged");
    assert.equal(calls.length, 3);
    // A version the controller's writes did not replace is judged as usual: an older one differs.
    stored.metadata.resourceVersion = "380";
    stored.metadata.annotations = {};
    await ensureChild(ctx, OWNER, Deployment, slim);
    assert.deepEqual(calls.slice(3), ["apply"]);
  });

  it("merges the operator's Update entry into its Apply entry when it has both", async () => {
    const live = child(await fingerprintOf(desired({ image: "nginx:1.28" })), appliedOverCreate);
    const { ctx, calls, patches } = holding(live);
    await ensureChild(ctx, OWNER, Deployment, desired({ image: "nginx:1.28", mode: false }));
    assert.deepEqual(calls, ["get", "patch", "apply"]);

    const entries = opsOf(patches[0]?.patch).at(-1)?.value as ManagedFieldsEntry[];
    const [apply, update] = ownEntries(appliedOverCreate);
    assert.deepEqual(
      ownEntries(entries).map((e) => [e.operation, e.time]),
      [["Apply", apply?.time]],
      "one entry of the operator's, its Apply one",
    );
    const merged = JSON.stringify(ownEntries(entries)[0]?.fieldsV1);
    for (const claim of ['"f:tier"', '"k:{\\"name\\":\\"MODE\\"}"', '"f:imagePullPolicy"', '"f:image"'])
      assert.ok(merged.includes(claim), claim);
    assert.ok(update && !entries.includes(update));
    assert.deepEqual(
      entries.filter((e) => e.manager !== OWN),
      appliedOverCreate.filter((e) => e.manager !== OWN),
    );
  });

  it("applies a later change alone (no read, no patch) once the operator's claims are all in its Apply entry", async () => {
    const applyOnly = appliedOverCreate.filter((e) => e.operation === "Apply");
    const live = child(await fingerprintOf(desired({ image: "nginx:1.28" })), applyOnly);
    const { ctx, calls } = holding(live);
    await ensureChild(ctx, OWNER, Deployment, desired({ image: "nginx:1.28", tier: false }));
    assert.deepEqual(calls, ["apply"]);
  });

  it("lets a custom `matches` decide alone, and notice a changed desired object when it includes appliedFrom", async () => {
    const live = child(await fingerprintOf(desired()), created());
    // Say, a Job's: its pod template is immutable, and must not be written again.
    const ignoring = holding(live);
    const result = await ensureChild(ignoring.ctx, OWNER, Deployment, desired({ mode: false }), {
      matches: () => true,
    });
    assert.deepEqual([result, ignoring.calls], ["unchanged", []]);

    const noticing = holding(live);
    await ensureChild(noticing.ctx, OWNER, Deployment, desired({ mode: false }), { matches: appliedFrom });
    assert.deepEqual(noticing.calls, ["get", "patch", "apply"], "the claims merged, then the apply prunes");

    const drifted = holding(live);
    await ensureChild(drifted.ctx, OWNER, Deployment, desired(), { matches: () => false });
    assert.deepEqual(drifted.calls, ["apply"], "the desired object did not change: nothing to prune");
  });

  it("applies once a child without a fingerprint (an earlier version's) whose desired fields all match", async () => {
    const live = child(undefined, created());
    const { ctx, calls, applies } = holding(live);
    assert.equal(await ensureChild(ctx, OWNER, Deployment, desired()), "updated");
    assert.deepEqual(calls, ["get", "patch", "apply"]);
    assert.equal(applies[0]?.obj.metadata.annotations?.[APPLIED], await fingerprintOf(desired()));
  });
});
