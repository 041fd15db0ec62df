/**
 * The Gizmo controller: keeps a ConfigMap holding the spec, then writes the status from what the
 * cache shows through the conditions engine and the status writer, and reports transitions as
 * events. `Ready` is True only once the cached ConfigMap holds the current spec. A spec message
 * starting with {@link HOLD} makes the reconcile wait at the probe's gate, so a test can keep a
 * new generation unobserved for as long as it needs.
 */
import { ConfigMap, type ConfigMapObject } from "../../../src/api/index.ts";
import { AlreadyExistsError, type Client } from "../../../src/client/index.ts";
import type { Reconciler } from "../../../src/controller/index.ts";
import {
  type ConditionReport,
  recordTransitions,
  type StatusUpdate,
  type StatusWriteResult,
  updateStatus,
} from "../../../src/status/index.ts";
import { configMapName, Gizmo, GizmoConditions, type GizmoObject } from "./gizmo.ts";

/** A message starting with this holds the reconcile at the gate until the test opens it. */
export const HOLD = "hold:";

/** The field manager of the controller's writes. */
export const FIELD_MANAGER = "gizmos-e2e";

/** A gate reconciles wait at until it opens; it stays open. */
export class Gate {
  #open = false;
  #waiters: (() => void)[] = [];
  /** Reconciles waiting now. */
  waiting = 0;

  /** Resolves once the gate is open; rejects when `signal` aborts first. */
  async pass(signal: AbortSignal): Promise<void> {
    if (this.#open) return;
    this.waiting++;
    try {
      await new Promise<void>((resolve, reject) => {
        this.#waiters.push(resolve);
        signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
    } finally {
      this.waiting--;
    }
  }

  /** Opens the gate for good. */
  open(): void {
    this.#open = true;
    for (const release of this.#waiters.splice(0)) release();
  }
}

/** What the tests observe of the controller. */
export class Probe {
  readonly gate = new Gate();
  /** Status write results per key, in order. */
  readonly results = new Map<string, StatusWriteResult[]>();
  /** Reconciles running now. */
  active = 0;

  /** Completed reconciles of `key` that reached the status writer. */
  writes(key: string): StatusWriteResult[] {
    return this.results.get(key) ?? [];
  }

  record(key: string, result: StatusWriteResult): void {
    this.results.set(key, [...this.writes(key), result]);
  }
}

/** The reconciler. */
export function gizmoReconciler(probe: Probe): Reconciler<GizmoObject> {
  return async (ctx) => {
    probe.active++;
    try {
      const obj = ctx.object;
      if (!obj || obj.metadata.deletionTimestamp) return;
      if (obj.spec.message.startsWith(HOLD)) await probe.gate.pass(ctx.signal);
      const cached = (await ctx.cache.reader(ConfigMap)).get(childName(obj), obj.metadata.namespace);
      await ensureConfigMap(ctx.client, obj, cached);
      let update: StatusUpdate | undefined;
      const result = await updateStatus(
        ctx.client,
        Gizmo,
        obj,
        (fresh) => {
          update = observe(fresh, cached);
          return { ...observedFields(cached), ...update.status };
        },
        { fieldManager: FIELD_MANAGER },
      );
      if (result === "updated" && update) recordTransitions(ctx, obj, update.transitions, GizmoConditions);
      probe.record(ctx.request.key, result);
      return undefined;
    } finally {
      probe.active--;
    }
  };
}

/** The ConfigMap data a Gizmo's spec asks for. */
export function desiredData(obj: GizmoObject): Record<string, string> {
  return { message: obj.spec.message, replicas: String(obj.spec.replicas) };
}

function childName(obj: GizmoObject): string {
  return configMapName(obj.metadata.name ?? "");
}

function inSync(obj: GizmoObject, child: ConfigMapObject | undefined): boolean {
  const want = desiredData(obj);
  return child?.data?.message === want.message && child?.data?.replicas === want.replicas;
}

async function ensureConfigMap(client: Client, obj: GizmoObject, cached: ConfigMapObject | undefined) {
  const namespace = obj.metadata.namespace;
  if (cached && inSync(obj, cached)) return;
  if (cached) {
    const patch = { data: desiredData(obj) };
    await client.patch(ConfigMap, childName(obj), patch, { type: "merge", namespace });
    return;
  }
  await client.create(ConfigMap, configMapFor(obj)).catch((err: unknown) => {
    if (!(err instanceof AlreadyExistsError)) throw err;
  });
}

function configMapFor(obj: GizmoObject): ConfigMapObject {
  const owner = { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name ?? "" };
  const ref = { ...owner, uid: obj.metadata.uid ?? "", controller: true, blockOwnerDeletion: true };
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: childName(obj), namespace: obj.metadata.namespace, ownerReferences: [ref] },
    data: desiredData(obj),
  };
}

/** The conditions, from `fresh`'s stored status and the ConfigMap as the cache showed it. */
function observe(fresh: GizmoObject, child: ConfigMapObject | undefined): StatusUpdate {
  return GizmoConditions.begin(fresh)
    .set("ConfigMapReady", configMapReport(fresh, child))
    .set("Degraded", degradedReport(fresh))
    .finish();
}

function configMapReport(obj: GizmoObject, child: ConfigMapObject | undefined): ConditionReport {
  const name = childName(obj);
  if (!child)
    return { status: "Unknown", reason: "ConfigMapCreating", message: `creating ConfigMap ${name}` };
  if (!inSync(obj, child))
    return { status: "Unknown", reason: "ConfigMapUpdating", message: `updating ConfigMap ${name}` };
  return { status: "True", reason: "ConfigMapInSync", message: `ConfigMap ${name} holds the spec` };
}

function degradedReport(obj: GizmoObject): ConditionReport {
  if (obj.spec.replicas === 0)
    return { status: "True", reason: "ScaledToZero", message: "spec.replicas is 0" };
  return { status: "False", reason: "ReplicasRequested", message: `${obj.spec.replicas} replicas requested` };
}

/** The kind-specific status fields: what the ConfigMap records, absent while there is none. */
function observedFields(child: ConfigMapObject | undefined): { replicas?: number; configMap?: string } {
  if (!child) return {};
  return { configMap: child.metadata.name, replicas: Number(child.data?.replicas ?? 0) };
}
