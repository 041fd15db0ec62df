/**
 * Helpers for runtime tests that break the control plane: a cluster of the test's own, clients
 * for it, the widget manager running on a given client, and reading the manager's metrics.
 */
import type { TestContext } from "node:test";
import pino from "pino";
import { ConfigMap, Namespace } from "../../../src/api/index.ts";
import { Client, loadKubeconfig } from "../../../src/client/index.ts";
import { type Cluster, startCluster } from "../../../src/cluster/index.ts";
import { controller } from "../../../src/controller/index.ts";
import type { Manager } from "../../../src/manager/index.ts";
import { type SideEffects, Widget, widget, widgetReconciler } from "../fixtures/widgets.ts";
import { managerMetric, onCleanup, startManager } from "../support.ts";

/** The sum of counter `name`'s samples with `labels` on the manager's `/metrics` (0 when none). */
export const metricValue = managerMetric;

/**
 * A control plane of the test's own (etcd and kube-apiserver only: nothing here needs pods),
 * stopped when the test ends.
 */
export async function ownCluster(t: TestContext, apiserverArgs: string[] = []): Promise<Cluster> {
  const cluster = await startCluster({
    apiserverArgs,
    components: { controllerManager: false, scheduler: false, kwok: false },
    report: () => {},
  });
  onCleanup(t, () => cluster.stop());
  return cluster;
}

/** A client for the kubeconfig at `path`, closed when the test ends. */
export async function clientFor(
  t: TestContext,
  path: string,
  qps = Number.POSITIVE_INFINITY,
): Promise<Client> {
  const client = new Client(await loadKubeconfig({ kubeconfig: path }), { qps });
  onCleanup(t, () => client.close());
  return client;
}

/** Creates namespace `name` with `client`. */
export async function createNamespace(client: Client, name: string): Promise<string> {
  await client.create(Namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name } });
  return name;
}

/** Runs the widget controller (4 workers) in a manager on `client`, watching `namespace`, until the test ends. */
export function startWidgetManager(
  t: TestContext,
  client: Client,
  namespace: string,
  effects: SideEffects,
): Promise<Manager> {
  // These tests break the control plane on purpose: the failures it logs are expected.
  const logger = pino({ level: process.env.LOG_LEVEL ?? "silent" });
  return startManager(t, { name: "widgets-e2e", client, namespace, logger }, (manager) => {
    controller(manager)
      .for(Widget)
      .owns(ConfigMap)
      .withOptions({ concurrency: 4 })
      .reconcile(widgetReconciler(effects));
  });
}

/** Creates widgets `names` (message `hello <name>`), twenty at a time. */
export async function createWidgets(client: Client, namespace: string, names: string[]): Promise<void> {
  for (let i = 0; i < names.length; i += 20) {
    await Promise.all(
      names.slice(i, i + 20).map((n) => client.create(Widget, widget(namespace, n, `hello ${n}`))),
    );
  }
}

/** Sets `spec.message` of widget `name`. */
export async function setMessage(client: Client, namespace: string, name: string, message: string) {
  await client.patch(Widget, name, { spec: { message } }, { type: "merge", namespace });
}
