/**
 * Runs the Gizmo controller in a Manager inside the test process, on a client of its own whose
 * requests are counted, and waits for objects to settle.
 */
import assert from "node:assert/strict";
import type { TestContext } from "node:test";
import { ConfigMap } from "../../../src/api/index.ts";
import { Client, loadKubeconfig } from "../../../src/client/index.ts";
import { controller, type HostedController } from "../../../src/controller/index.ts";
import type { Manager } from "../../../src/manager/index.ts";
import { isTrue } from "../../../src/status/index.ts";
import {
  eventually,
  kubeconfigPath,
  onCleanup,
  RequestCounter,
  startManager,
  testClient,
} from "../support.ts";

export { RequestCounter };

import { Gizmo, type GizmoObject } from "./gizmo.ts";
import { FIELD_MANAGER, gizmoReconciler, Probe } from "./gizmo-controller.ts";

/** A running Gizmo controller and what tests observe of it. */
export interface GizmoHarness {
  manager: Manager;
  controller: HostedController;
  probe: Probe;
  /** Every request of the manager's client: the controller's reads and writes, and its events. */
  requests: RequestCounter;
}

/** A client for the run's cluster whose requests `counter` sees; the caller closes it. */
export async function countedClient(counter: RequestCounter): Promise<Client> {
  const connection = await loadKubeconfig({ kubeconfig: kubeconfigPath() });
  return new Client(connection, {
    qps: Number.POSITIVE_INFINITY,
    fieldManager: FIELD_MANAGER,
    metrics: counter,
  });
}

/** Starts a manager running the Gizmo controller for `namespace`; stops it when the test ends. */
export async function startGizmoManager(t: TestContext, namespace: string): Promise<GizmoHarness> {
  const requests = new RequestCounter();
  const client = await countedClient(requests);
  onCleanup(t, () => client.close());
  const probe = new Probe();
  const manager = await startManager(
    t,
    { name: FIELD_MANAGER, client, namespace },
    (m) => {
      controller(m).for(Gizmo).owns(ConfigMap).reconcile(gizmoReconciler(probe));
    },
    () => probe.gate.open(),
  );
  const [built] = manager.controllers;
  assert.ok(built, "the manager hosts the Gizmo controller");
  return { manager, controller: built, probe, requests };
}

/** True when `obj`'s status describes its current generation. */
export function observedCurrent(obj: GizmoObject): boolean {
  const generation = obj.metadata.generation;
  const conditions = obj.status?.conditions ?? [];
  const ready = conditions.find((c) => c.type === "Ready");
  return obj.status?.observedGeneration === generation && ready?.observedGeneration === generation;
}

/**
 * Waits until the Gizmo is Ready for its current generation, the controller is idle, its cache
 * holds the apiserver's latest copy and the events it recorded are written (the recorder sends
 * them in the background, so a test counting writes from here on would otherwise count them);
 * returns that copy.
 */
export async function settledReady(h: GizmoHarness, namespace: string, name: string): Promise<GizmoObject> {
  const client = await testClient();
  const cache = await h.manager.cache.reader(Gizmo);
  const settled = await eventually(
    async () => {
      const live = await client.get(Gizmo, name, { namespace });
      if (!observedCurrent(live) || !isTrue(live.status?.conditions ?? [], "Ready")) return undefined;
      const cached = cache.get(name, namespace);
      const idle = h.probe.active === 0 && h.controller.queue.length === 0;
      return idle && cached?.metadata.resourceVersion === live.metadata.resourceVersion ? live : undefined;
    },
    { what: `gizmo ${name} settled Ready`, timeoutMs: 60_000 },
  );
  await h.manager.recorder.flush();
  return settled;
}
