/**
 * Runs the Gizmo controller in a Manager inside the test process, on a client of its own whose
 * requests are counted, and waits for objects to settle.
 */
import type { TestContext } from "node:test";
import { ConfigMap } from "../../../src/api/index.ts";
import {
  Client,
  type ClientMetrics,
  loadKubeconfig,
  type RequestObservation,
} from "../../../src/client/index.ts";
import { type Controller, controller } from "../../../src/controller/index.ts";
import { Manager } from "../../../src/manager/index.ts";
import { isTrue } from "../../../src/status/index.ts";
import { eventually, kubeconfigPath, testClient, testLogger } from "../support.ts";
import { Gizmo, type GizmoObject } from "./gizmo.ts";
import { FIELD_MANAGER, gizmoReconciler, Probe } from "./gizmo-controller.ts";

const WRITE_VERBS = new Set(["create", "update", "patch", "delete", "deletecollection"]);

/** Counts the requests a client sends, by verb and code. */
export class RequestCounter implements ClientMetrics {
  readonly seen: RequestObservation[] = [];

  request(observation: RequestObservation): void {
    this.seen.push(observation);
  }

  /** Write requests (create, update, patch, delete) sent so far, whatever their answer. */
  get writes(): number {
    return this.seen.filter((o) => WRITE_VERBS.has(o.verb)).length;
  }

  /** Requests answered with `code` so far. */
  answered(code: string): number {
    return this.seen.filter((o) => o.code === code).length;
  }
}

/** A running Gizmo controller and what tests observe of it. */
export interface GizmoHarness {
  manager: Manager;
  controller: Controller<GizmoObject>;
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
  const manager = await Manager.create({
    name: FIELD_MANAGER,
    client,
    namespace,
    metrics: { host: "127.0.0.1", port: 0 },
    health: { host: "127.0.0.1", port: 0 },
    logger: testLogger(),
  });
  const probe = new Probe();
  const built = controller(manager).for(Gizmo).owns(ConfigMap).reconcile(gizmoReconciler(probe));
  const stop = new AbortController();
  const running = manager.start(stop.signal);
  t.after(async () => {
    probe.gate.open();
    stop.abort();
    await running;
    await client.close();
  });
  await eventually(() => manager.ready, { what: "manager ready" });
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
 * Waits until the Gizmo is Ready for its current generation, the controller is idle, and its cache
 * holds the apiserver's latest copy; returns that copy.
 */
export async function settledReady(h: GizmoHarness, namespace: string, name: string): Promise<GizmoObject> {
  const client = await testClient();
  const cache = await h.manager.cache.reader(Gizmo);
  return eventually(
    async () => {
      const live = await client.get(Gizmo, name, { namespace });
      if (!observedCurrent(live) || !isTrue(live.status?.conditions ?? [], "Ready")) return undefined;
      const cached = cache.get(name, namespace);
      const idle = h.probe.active === 0 && h.controller.queue.length === 0;
      return idle && cached?.metadata.resourceVersion === live.metadata.resourceVersion ? live : undefined;
    },
    { what: `gizmo ${name} settled Ready`, timeoutMs: 60_000 },
  );
}
