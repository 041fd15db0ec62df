/**
 * The client-node contender: the Widget operator a TypeScript user writes by hand today on
 * @kubernetes/client-node 1.4 — two informers (`makeInformer`, Widgets and ConfigMaps in every
 * namespace) as caches and event sources, ConfigMap events mapped to their owning Widget, a small
 * key queue with 4 workers (shared/workqueue.ts; client-node has none), a periodic resync that
 * re-queues every cached Widget (client-node has none either), informers restarted after an error
 * as client-node's README shows. Reconcile: read both objects from the caches, create the ConfigMap
 * if missing, replace it if its data differs, merge-patch the status only when it is not current.
 * Plain JavaScript: the repository's type check runs without the peers' packages installed.
 */
import * as k8s from "@kubernetes/client-node";
import { ready, reconcileDone, reconcileStarted, settings } from "../shared/markers.ts";
import {
  API_VERSION,
  configMapName,
  dataMatches,
  desiredConfigMap,
  GROUP,
  KIND,
  PLURAL,
  readyStatus,
  statusCurrent,
  VERSION,
} from "../shared/widget.ts";
import { KeyQueue } from "../shared/workqueue.ts";

const kc = new k8s.KubeConfig();
kc.loadFromDefault();
const core = kc.makeApiClient(k8s.CoreV1Api);
const custom = kc.makeApiClient(k8s.CustomObjectsApi);

const widgets = k8s.makeInformer(kc, `/apis/${GROUP}/${VERSION}/${PLURAL}`, () =>
  custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL }),
);
const configMaps = k8s.makeInformer(kc, "/api/v1/configmaps", () => core.listConfigMapForAllNamespaces());

const keyOf = (namespace, name) => `${namespace}/${name}`;

async function reconcile(key) {
  reconcileStarted();
  const [namespace = "", name = ""] = key.split("/");
  const widget = widgets.get(name, namespace);
  if (!widget || widget.metadata?.deletionTimestamp) return;
  const desired = desiredConfigMap(widget);
  const current = configMaps.get(configMapName(name), namespace);
  if (!current) {
    await core.createNamespacedConfigMap({ namespace, body: desired });
  } else if (!dataMatches(widget, current.data)) {
    await core.replaceNamespacedConfigMap({
      name: configMapName(name),
      namespace,
      body: { ...current, data: desired.data },
    });
  }
  if (!statusCurrent(widget)) {
    await custom.patchNamespacedCustomObjectStatus(
      {
        group: GROUP,
        version: VERSION,
        plural: PLURAL,
        namespace,
        name,
        body: { status: readyStatus(widget) },
      },
      k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
    );
  }
  reconcileDone(key);
}

const queue = new KeyQueue(reconcile, settings.workers);
const enqueueWidget = (w) => queue.add(keyOf(w.metadata?.namespace, w.metadata?.name));
const enqueueOwner = (cm) => {
  const owner = cm.metadata?.ownerReferences?.find(
    (r) => r.controller && r.kind === KIND && r.apiVersion === API_VERSION,
  );
  if (owner) queue.add(keyOf(cm.metadata?.namespace, owner.name));
};
for (const verb of [k8s.ADD, k8s.UPDATE, k8s.DELETE]) {
  widgets.on(verb, enqueueWidget);
  configMaps.on(verb, enqueueOwner);
}
for (const informer of [widgets, configMaps]) {
  informer.on(k8s.ERROR, (err) => {
    console.error(`informer error, restarting in 1 s: ${err}`);
    setTimeout(() => void informer.start(), 1000);
  });
}

await Promise.all([widgets.start(), configMaps.start()]);
setInterval(() => {
  for (const w of widgets.list()) enqueueWidget(w);
}, settings.resyncSeconds * 1000);
ready();
