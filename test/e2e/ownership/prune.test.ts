/**
 * A desired object that stops setting fields, on the real control plane: a Widget's Deployment
 * drops an env entry and a label, then its last env entry; each time they are gone from the live
 * Deployment, with the writes expected (the first time, one patch that makes the create's claims
 * the operator's Apply entry, and the apply; then the apply alone), and a settled child is neither
 * read nor written however often it reconciles.
 */
import assert from "node:assert/strict";
import { type TestContext, test } from "node:test";
import { Deployment, type DeploymentObject } from "../../../src/api/index.ts";
import type { Client } from "../../../src/client/index.ts";
import { controller, type HostedController } from "../../../src/controller/index.ts";
import type { Manager } from "../../../src/manager/index.ts";
import { type EnsureResult, ensureChild } from "../../../src/ownership/index.ts";
import { installWidgetCrd, Widget, type WidgetObject, widget } from "../fixtures/widgets.ts";
import { eventually, testClient, testNamespace } from "../support.ts";
import { metric, startManager } from "./support.ts";

const OPERATOR = "prune-e2e";
const LABELS = { app: "web" };

/**
 * The Deployment a Widget desires; its message says how much of it: `full` (env MESSAGE and MODE,
 * label `tier`), `slim` (env MESSAGE), `bare` (no env).
 */
function desiredDeployment(w: WidgetObject): DeploymentObject {
  const { message } = w.spec;
  const env = [
    { name: "MESSAGE", value: "hello" },
    { name: "MODE", value: "prod" },
  ].slice(0, { full: 2, slim: 1 }[message] ?? 0);
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: `${w.metadata.name}-web`,
      namespace: w.metadata.namespace,
      labels: message === "full" ? { ...LABELS, tier: "edge" } : LABELS,
    },
    spec: {
      replicas: 1,
      selector: { matchLabels: LABELS },
      template: {
        metadata: { labels: LABELS },
        spec: { containers: [{ name: "web", image: "nginx:1.27", ...(env.length > 0 ? { env } : {}) }] },
      },
    },
  };
}

interface PruneOperator {
  manager: Manager;
  widgets: HostedController;
  /** What each reconcile's ensureChild answered, in order. */
  results: EnsureResult[];
}

async function startOperator(t: TestContext, namespace: string): Promise<PruneOperator> {
  const results: EnsureResult[] = [];
  const manager = await startManager(t, OPERATOR, namespace, {}, (m) => {
    controller(m)
      .for(Widget)
      .owns(Deployment)
      .reconcile(async (ctx) => {
        if (ctx.object)
          results.push(await ensureChild(ctx, ctx.object, Deployment, desiredDeployment(ctx.object)));
      });
  });
  const [widgets] = manager.controllers;
  assert.ok(widgets);
  return { manager, widgets, results };
}

/** What the manager's client sent so far: successful writes by method, GETs (lists and watches included). */
async function requests(manager: Manager) {
  const sent = (method: string, code?: string) =>
    metric(manager, "rest_client_requests_total", code ? { method, code } : { method });
  const [posts, puts, deletes, patches, conflicts, gets] = await Promise.all([
    sent("POST"),
    sent("PUT"),
    sent("DELETE"),
    sent("PATCH", "200"),
    sent("PATCH", "409"),
    sent("GET"),
  ]);
  return { posts, puts, deletes, patches, conflicts, gets };
}

type Requests = Awaited<ReturnType<typeof requests>>;

/** The requests sent since `before`. */
async function since(manager: Manager, before: Requests): Promise<Requests> {
  const now = await requests(manager);
  const delta = Object.entries(now).map(([k, v]) => [k, v - before[k as keyof Requests]]);
  return Object.fromEntries(delta) as Requests;
}

/** The Deployment once it is rolled out, holding what `w`'s message asks. */
function rolledOut(client: Client, w: WidgetObject, env: string, labels: string): Promise<DeploymentObject> {
  const { name = "", namespace } = w.metadata;
  return eventually(
    async () => {
      const d = await client.get(Deployment, `${name}-web`, { namespace });
      const [web] = d.spec?.template.spec?.containers ?? [];
      const done =
        d.status?.observedGeneration === d.metadata.generation &&
        d.status?.updatedReplicas === 1 &&
        d.status?.availableReplicas === 1 &&
        d.status?.replicas === 1;
      const holds =
        (web?.env ?? []).map((e) => e.name).join() === env &&
        Object.keys(d.metadata.labels ?? {}).join() === labels;
      return done && holds ? d : undefined;
    },
    { what: `the Deployment rolled out with env [${env}] and labels [${labels}]`, timeoutMs: 60_000 },
  );
}

/** Reconciles the Widget `times` more times; asserts each found the child settled. */
async function reconcileAgain(op: PruneOperator, key: string, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    const seen = op.results.length;
    op.widgets.enqueue(key, "test");
    await eventually(() => op.results.length > seen, { what: `reconcile ${i + 1}` });
  }
  assert.deepEqual(op.results.slice(-times), Array(times).fill("unchanged"));
}

/** Sets the Widget's message, and waits until a reconcile wrote the child and a later one found it settled. */
async function setMessage(
  client: Client,
  op: PruneOperator,
  w: WidgetObject,
  message: string,
): Promise<void> {
  const seen = op.results.length;
  await client.patch(
    Widget,
    "web",
    { spec: { message } },
    { type: "merge", namespace: w.metadata.namespace },
  );
  await eventually(() => op.results.slice(seen).includes("updated"), {
    what: `the ${message} Deployment applied`,
  });
}

test("fields the desired object drops are removed from the live child, with the writes expected; a settled child is neither read nor written", async (t) => {
  await installWidgetCrd();
  const ns = await testNamespace(t);
  const client = await testClient();
  const w = await client.create(Widget, widget(ns, "web", "full"));
  const op = await startOperator(t, ns);
  const key = `${ns}/web`;

  // Created (one POST), then settled: over several reconciles, no request at all.
  await rolledOut(client, w, "MESSAGE,MODE", "app,tier");
  await eventually(() => op.results.at(-1) === "unchanged", {
    what: "a reconcile finding the child settled",
  });
  let before = await requests(op.manager);
  await reconcileAgain(op, key, 5);
  assert.deepEqual(await since(op.manager, before), {
    posts: 0,
    puts: 0,
    deletes: 0,
    patches: 0,
    conflicts: 0,
    gets: 0,
  });

  // The env entry MODE and the label tier dropped: gone. The create's claims became the operator's
  // Apply entry first (one read, one patch of managedFields), then the apply pruned them.
  await setMessage(client, op, w, "slim");
  const slim = await rolledOut(client, w, "MESSAGE", "app");
  await reconcileAgain(op, key, 5);
  const merged = await since(op.manager, before);
  assert.deepEqual(
    { ...merged, gets: merged.gets - merged.conflicts },
    { posts: 0, puts: 0, deletes: 0, patches: 2, conflicts: merged.conflicts, gets: 1 },
    "a conflict (the Deployment's status changed meanwhile) costs one more read and patch, no more",
  );
  const own = (slim.metadata.managedFields ?? []).filter((e) => e.manager === OPERATOR);
  assert.deepEqual(
    own.map((e) => [e.operation, e.subresource]),
    [["Apply", undefined]],
    "the operator claims through its Apply entry only",
  );

  // From then on, dropping a field is the apply alone; settled again, nothing more.
  before = await requests(op.manager);
  await setMessage(client, op, w, "bare");
  await rolledOut(client, w, "", "app");
  await reconcileAgain(op, key, 5);
  assert.deepEqual(await since(op.manager, before), {
    posts: 0,
    puts: 0,
    deletes: 0,
    patches: 1,
    conflicts: 0,
    gets: 0,
  });
  assert.equal(
    await metric(op.manager, "kubeloop_drift_repairs_total"),
    0,
    "a change of the desired object is no drift",
  );
  assert.equal(await metric(op.manager, "controller_runtime_reconcile_errors_total"), 0);
});
