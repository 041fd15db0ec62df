/**
 * The @dot-i/k8s-operator contender (1.3.9, on its own @kubernetes/client-node 0.20): an
 * `Operator` subclass that watches Widgets and ConfigMaps with `watchResource` and reacts to
 * events, as the package's README shows. The framework has no cache, no work queue, no retry and
 * no resync: a Widget's ADDED event (and a MODIFIED one whose generation is not yet observed)
 * reconciles it; a ConfigMap's MODIFIED or DELETED event re-reads its owning Widget and reconciles
 * that; the ConfigMap is read with a GET. Status goes through `patchResourceStatus`.
 * Deviation, for the benchmark's equal concurrency: the framework's event queue (async.queue,
 * one event at a time) is set to 4 concurrent events. It has no per-key serialisation, so
 * AlreadyExists on create is taken as success.
 * Plain JavaScript: the repository's type check runs without the peers' packages installed.
 */
import { createRequire } from "node:module";
import dotI from "@dot-i/k8s-operator";
import { ready, reconcileDone, reconcileStarted, settings } from "../shared/markers.ts";
import {
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

// The client-node 0.20 that @dot-i/k8s-operator itself depends on (not the 1.4 of this package).
const require = createRequire(createRequire(import.meta.url).resolve("@dot-i/k8s-operator"));
const k8s = require("@kubernetes/client-node");
const Operator = dotI.default ?? dotI;

const isNotFound = (err) => err?.statusCode === 404 || err?.response?.statusCode === 404;
const isConflict = (err) => err?.statusCode === 409 || err?.response?.statusCode === 409;

class WidgetOperator extends Operator {
  custom = this.kubeConfig.makeApiClient(k8s.CustomObjectsApi);

  async init() {
    this.eventQueue.concurrency = settings.workers;
    await this.watchResource(GROUP, VERSION, PLURAL, (e) => this.onWidget(e));
    await this.watchResource("", "v1", "configmaps", (e) => this.onConfigMap(e));
  }

  async onWidget(e) {
    const w = e.object;
    if (e.type === "DELETED") return;
    if (e.type === "MODIFIED" && w.status?.observedGeneration === w.metadata.generation) return;
    await this.guard(() => this.reconcile(w, e.meta));
  }

  async onConfigMap(e) {
    if (e.type === "ADDED") return;
    const owner = e.object.metadata?.ownerReferences?.find((r) => r.controller && r.kind === KIND);
    if (!owner) return;
    await this.guard(async () => {
      let widget;
      try {
        widget = (
          await this.custom.getNamespacedCustomObject(GROUP, VERSION, e.meta.namespace, PLURAL, owner.name)
        ).body;
      } catch (err) {
        if (isNotFound(err)) return;
        throw err;
      }
      const meta = {
        ...e.meta,
        id: `${PLURAL}.${GROUP}/${VERSION}`,
        name: owner.name,
        resourceVersion: widget.metadata.resourceVersion,
        apiVersion: widget.apiVersion,
        kind: widget.kind,
      };
      await this.reconcile(widget, meta);
    });
  }

  async reconcile(w, meta) {
    reconcileStarted();
    if (w.metadata.deletionTimestamp) return;
    const namespace = w.metadata.namespace;
    const name = configMapName(w.metadata.name);
    const desired = desiredConfigMap(w);
    let current;
    try {
      current = (await this.k8sApi.readNamespacedConfigMap(name, namespace)).body;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (!current) {
      await this.k8sApi.createNamespacedConfigMap(namespace, desired).catch((err) => {
        if (!isConflict(err)) throw err;
      });
    } else if (!dataMatches(w, current.data)) {
      await this.k8sApi.replaceNamespacedConfigMap(name, namespace, { ...current, data: desired.data });
    }
    if (!statusCurrent(w)) await this.patchResourceStatus(meta, readyStatus(w));
    reconcileDone(`${namespace}/${w.metadata.name}`);
  }

  async guard(fn) {
    try {
      await fn();
    } catch (err) {
      const code = err?.statusCode ?? err?.response?.statusCode ?? "";
      console.error(
        `reconcile failed (no retry in this framework): ${code} ${err?.body?.message ?? err?.message}`,
      );
    }
  }
}

const operator = new WidgetOperator();
await operator.start();
ready();
const stop = () => {
  operator.stop();
  process.exit(0);
};
process.on("SIGTERM", stop).on("SIGINT", stop);
