/**
 * Taking over children another field manager wrote, on the real control plane: a previous
 * operator (field manager `manager`) made a Widget's Deployment, ConfigMap and Job — by a plain
 * create as controller-runtime's `CreateOrUpdate` does, or by an update of what someone else
 * created — with a controller reference to the Widget and more than this operator desires (an
 * extra container port, env entry and volume; an extra data key; an extra Job field). Started
 * afterwards, the operator converges each child without a failed reconcile, reports the drift
 * once per child, leaves the foreign manager no claim on the content, and then writes nothing and
 * reads nothing more however often it reconciles.
 */
import assert from "node:assert/strict";
import { type TestContext, test } from "node:test";
import {
  ConfigMap,
  type ConfigMapObject,
  Deployment,
  type DeploymentObject,
  Job,
  type JobObject,
  type KubeObject,
  type ResourceType,
} from "../../../src/api/index.ts";
import type { Client } from "../../../src/client/index.ts";
import { controller, type HostedController } from "../../../src/controller/index.ts";
import type { Manager } from "../../../src/manager/index.ts";
import { controllerReference, type EnsureResult, ensureChild } from "../../../src/ownership/index.ts";
import { assertClaimsNoContent, PREVIOUS_OPERATOR as PREVIOUS } from "../fixtures/previous-operator.ts";
import { installWidgetCrd, Widget, type WidgetObject, widget } from "../fixtures/widgets.ts";
import { clientAs, eventually, readAndUpdate, testClient, testNamespace } from "../support.ts";
import { eventsAbout, metric, startManager, writesSent } from "./support.ts";

const OPERATOR = "takeover-e2e";
const LABELS = { app: "web" };

/** The Deployment a Widget owns: one container with a port, an env entry and a mounted volume. */
function desiredDeployment(w: WidgetObject): DeploymentObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: `${w.metadata.name}-web`, namespace: w.metadata.namespace, labels: LABELS },
    spec: {
      replicas: 1,
      selector: { matchLabels: LABELS },
      template: {
        metadata: { labels: LABELS },
        spec: {
          containers: [
            {
              name: "web",
              image: "nginx:1.27",
              ports: [{ name: "http", containerPort: 8080 }],
              env: [{ name: "MESSAGE", value: w.spec.message }],
              volumeMounts: [{ name: "config", mountPath: "/etc/web" }],
            },
          ],
          volumes: [{ name: "config", configMap: { name: `${w.metadata.name}-config` } }],
        },
      },
    },
  };
}

function desiredConfigMap(w: WidgetObject): ConfigMapObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: `${w.metadata.name}-config`, namespace: w.metadata.namespace },
    data: { message: w.spec.message },
  };
}

/** The Job a Widget owns: one worker with an env entry and a mounted volume. */
function desiredJob(w: WidgetObject): JobObject {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: `${w.metadata.name}-job`, namespace: w.metadata.namespace },
    spec: {
      backoffLimit: 0,
      template: {
        metadata: { labels: LABELS },
        spec: {
          restartPolicy: "Never",
          containers: [
            {
              name: "worker",
              image: "busybox:1.37",
              args: ["true"],
              env: [{ name: "MESSAGE", value: w.spec.message }],
              volumeMounts: [{ name: "config", mountPath: "/etc/worker" }],
            },
          ],
          volumes: [{ name: "config", configMap: { name: `${w.metadata.name}-config` } }],
        },
      },
    },
  };
}

/** What the previous operator made: the desired children with more, and its controller reference. */
function previousChildren(w: WidgetObject): [DeploymentObject, ConfigMapObject, JobObject] {
  const owned = <T extends KubeObject>(obj: T): T => ({
    ...obj,
    metadata: { ...obj.metadata, ownerReferences: [controllerReference(w)] },
  });
  const deployment = owned(desiredDeployment(w));
  const [web] = deployment.spec?.template.spec?.containers ?? [];
  assert.ok(web && deployment.spec?.template.spec);
  web.ports?.push({ name: "metrics", containerPort: 9090 });
  web.env?.push({ name: "LEGACY", value: "1" });
  web.volumeMounts?.push({ name: "scratch", mountPath: "/tmp" });
  deployment.spec.template.spec.volumes?.push({ name: "scratch", emptyDir: {} });
  const configMap = owned(desiredConfigMap(w));
  configMap.data = { ...configMap.data, legacy: "1" };
  // The pod template of a Job cannot change: the previous Job's differs only outside of it.
  const job = owned(desiredJob(w));
  assert.ok(job.spec);
  job.spec.activeDeadlineSeconds = 3600;
  return [deployment, configMap, job];
}

interface TakeOverOperator {
  manager: Manager;
  widgets: HostedController;
  /** What each reconcile's ensureChild calls answered, in order. */
  results: EnsureResult[][];
}

async function startOperator(t: TestContext, namespace: string): Promise<TakeOverOperator> {
  const results: EnsureResult[][] = [];
  const manager = await startManager(t, OPERATOR, namespace, {}, (m) => {
    controller(m)
      .for(Widget)
      .owns(Deployment)
      .owns(ConfigMap)
      .owns(Job)
      .reconcile(async (ctx) => {
        const w = ctx.object;
        if (!w) return undefined;
        results.push([
          await ensureChild(ctx, w, ConfigMap, desiredConfigMap(w)),
          await ensureChild(ctx, w, Deployment, desiredDeployment(w)),
          await ensureChild(ctx, w, Job, desiredJob(w)),
        ]);
        return undefined;
      });
  });
  const [widgets] = manager.controllers;
  assert.ok(widgets);
  return { manager, widgets, results };
}

const kinds: [ResourceType<KubeObject>, string][] = [
  [Deployment as ResourceType<KubeObject>, "web"],
  [ConfigMap as ResourceType<KubeObject>, "config"],
  [Job as ResourceType<KubeObject>, "job"],
];

/** How the previous operator wrote its children before this one starts. */
type Writing = (t: TestContext, children: KubeObject[]) => Promise<void>;

/** A plain create by the previous operator. */
const created: Writing = async (t, children) => {
  const previous = await clientAs(t, PREVIOUS);
  for (const child of children) await previous.create(typeOf(child), child);
};

/** Created as desired by someone, then updated (a PUT) by the previous operator with its additions. */
const updated: Writing = async (t, children) => {
  const creator = await clientAs(t, "creator");
  const previous = await clientAs(t, PREVIOUS);
  for (const child of children) {
    const type = typeOf(child);
    const desired = desiredOf(child);
    const owner = child.metadata.ownerReferences;
    await creator.create(type, { ...desired, metadata: { ...desired.metadata, ownerReferences: owner } });
    await readAndUpdate(previous, type, child, (current) => updatedBy(current, child));
  }
};

/**
 * `current` as the previous operator's update leaves it: holding `child`'s content. A Job's
 * selector and pod template are fixed once it is created: its update changes only the rest.
 */
function updatedBy(current: KubeObject, child: KubeObject): KubeObject {
  const { metadata: _, ...content } = child;
  if (child.kind !== "Job") return { ...current, ...content };
  const spec = {
    ...(current as JobObject).spec,
    activeDeadlineSeconds: (child as JobObject).spec?.activeDeadlineSeconds,
  };
  return { ...current, spec } as JobObject;
}

test("children a previous operator created by a plain create are taken over: converged, drift reported once each, then no write and no read", async (t) => {
  await takeOverScenario(t, created, [PREVIOUS]);
});

test("children a previous operator updated (a PUT over someone else's create) are taken over the same way", async (t) => {
  await takeOverScenario(t, updated, [PREVIOUS, "creator"]);
});

async function takeOverScenario(t: TestContext, write: Writing, foreign: string[]): Promise<void> {
  await installWidgetCrd();
  const ns = await testNamespace(t);
  const client = await testClient();
  const w = await client.create(Widget, widget(ns, "legacy", "hello"));
  await write(t, previousChildren(w));

  const op = await startOperator(t, ns);
  await eventually(async () => converged(client, w), { what: "the children converged", timeoutMs: 60_000 });
  await eventually(() => op.results.at(-1)?.every((r) => r === "unchanged"), {
    what: "a reconcile finding every child settled",
    timeoutMs: 30_000,
  });

  // Settled: however often it reconciles, nothing is written and nothing read.
  const writes = await writesSent(op.manager);
  const reads = await metric(op.manager, "rest_client_requests_total", { method: "GET" });
  const before = await Promise.all(kinds.map(([type, suffix]) => childOf(client, type, w, suffix)));
  for (let i = 0; i < 5; i++) {
    const seen = op.results.length;
    op.widgets.enqueue(`${ns}/legacy`, "test");
    await eventually(() => op.results.length > seen, { what: `reconcile ${i + 1}` });
  }
  assert.deepEqual(op.results.slice(-5).flat(), Array(15).fill("unchanged"));
  assert.equal(await writesSent(op.manager), writes, "no POST, PUT, PATCH or DELETE");
  assert.equal(await metric(op.manager, "rest_client_requests_total", { method: "GET" }), reads, "no GET");
  const after = await Promise.all(kinds.map(([type, suffix]) => childOf(client, type, w, suffix)));
  assert.deepEqual(
    after.map((c) => [c.metadata.generation, c.metadata.managedFields?.length]),
    before.map((c) => [c.metadata.generation, c.metadata.managedFields?.length]),
  );

  // No foreign manager claims the content any more; the defaulted values stay.
  for (const child of after) assertClaimsNoContent(child, foreign);
  const [deployment] = after as [DeploymentObject];
  assert.equal(deployment.spec?.revisionHistoryLimit, 10);
  assert.equal(deployment.spec?.template.spec?.dnsPolicy, "ClusterFirst");

  // Each child's drift reported once, and not a single failed reconcile.
  for (const kind of ["Deployment", "ConfigMap", "Job"])
    assert.equal(await metric(op.manager, "kubeloop_drift_repairs_total", { kind }), 1, kind);
  await op.manager.recorder.flush(AbortSignal.timeout(10_000));
  assert.equal((await eventsAbout(client, ns, "legacy", "DriftRepaired")).length, 3);
  assert.equal(await metric(op.manager, "controller_runtime_reconcile_errors_total"), 0);
  assert.equal(await metric(op.manager, "controller_runtime_terminal_reconcile_errors_total"), 0);
}

/** True when every child holds what this operator desires, and nothing the previous one added. */
async function converged(client: Client, w: WidgetObject): Promise<boolean> {
  const deployment = (await childOf(client, Deployment, w, "web")) as DeploymentObject;
  const configMap = (await childOf(client, ConfigMap, w, "config")) as ConfigMapObject;
  const job = (await childOf(client, Job, w, "job")) as JobObject;
  const [web] = deployment.spec?.template.spec?.containers ?? [];
  return (
    web?.ports?.map((p) => p.name).join() === "http" &&
    web.env?.map((e) => e.name).join() === "MESSAGE" &&
    web.volumeMounts?.map((m) => m.name).join() === "config" &&
    deployment.spec?.template.spec?.volumes?.map((v) => v.name).join() === "config" &&
    Object.keys(configMap.data ?? {}).join() === "message" &&
    job.spec?.activeDeadlineSeconds === undefined
  );
}

function childOf(client: Client, type: ResourceType<KubeObject>, w: WidgetObject, suffix: string) {
  return client.get(type, `${w.metadata.name}-${suffix}`, { namespace: w.metadata.namespace });
}

function typeOf(child: KubeObject): ResourceType<KubeObject> {
  const found = kinds.find(([type]) => type.kind === child.kind);
  assert.ok(found, child.kind);
  return found[0];
}

/** The desired counterpart of a previous child. */
function desiredOf(child: KubeObject): KubeObject {
  const w = { ...widget(child.metadata.namespace ?? "", "legacy", "hello") } as WidgetObject;
  if (child.kind === "Deployment") return desiredDeployment(w);
  if (child.kind === "ConfigMap") return desiredConfigMap(w);
  return desiredJob(w);
}
