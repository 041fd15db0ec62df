/**
 * The workload every contender runs, stated once: a Widget (bench.kubeloop.dev/v1) owns one
 * ConfigMap `<name>-config` whose `data.message` is the Widget's `spec.message`; its status holds
 * `observedGeneration` and two conditions, `ConfigMapReady` and the summary `Ready` (the shape
 * kubeloop's condition set writes), each with the generation it was computed for. Used by the
 * Node contenders, the floor and the runner; the Go contender mirrors it in main.go.
 */

export const GROUP = "bench.kubeloop.dev";
export const VERSION = "v1";
export const KIND = "Widget";
export const PLURAL = "widgets";
export const API_VERSION = `${GROUP}/${VERSION}`;
export const CONFIGMAP_READY = "ConfigMapReady";
/** The namespace the runner creates Widgets in; contenders watch every namespace. */
export const NAMESPACE = "bench";

/** The fields of a Widget the contenders and the runner read. */
export interface WidgetLike {
  metadata: {
    name?: string;
    namespace?: string;
    uid?: string;
    generation?: number;
    deletionTimestamp?: string | Date;
  };
  spec?: { message?: string };
  status?: { observedGeneration?: number; conditions?: ConditionLike[] };
}

/** A metav1.Condition as JSON. */
export interface ConditionLike {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
  lastTransitionTime?: string | Date;
}

/** The name of a Widget's ConfigMap. */
export function configMapName(widgetName: string): string {
  return `${widgetName}-config`;
}

/** The data a Widget's ConfigMap must hold. */
export function desiredData(w: WidgetLike): Record<string, string> {
  return { message: w.spec?.message ?? "" };
}

/** The controller reference a Widget's ConfigMap carries. */
export function ownerReference(w: WidgetLike) {
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    name: w.metadata.name ?? "",
    uid: w.metadata.uid ?? "",
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The ConfigMap a Widget owns, as desired. */
export function desiredConfigMap(w: WidgetLike) {
  return {
    apiVersion: "v1" as const,
    kind: "ConfigMap" as const,
    metadata: {
      name: configMapName(w.metadata.name ?? ""),
      namespace: w.metadata.namespace,
      ownerReferences: [ownerReference(w)],
    },
    data: desiredData(w),
  };
}

/** True when `data` holds exactly what the Widget asks for. */
export function dataMatches(w: WidgetLike, data: Record<string, string> | undefined): boolean {
  const want = desiredData(w);
  const keys = Object.keys(data ?? {});
  return keys.length === Object.keys(want).length && keys.every((k) => data?.[k] === want[k]);
}

function conditionCurrent(w: WidgetLike, type: string): boolean {
  const c = w.status?.conditions?.find((x) => x.type === type);
  return c?.status === "True" && c.observedGeneration === w.metadata.generation;
}

/** True when the stored status already says Ready for the current generation (nothing to write). */
export function statusCurrent(w: WidgetLike): boolean {
  return (
    w.status?.observedGeneration === w.metadata.generation &&
    conditionCurrent(w, "Ready") &&
    conditionCurrent(w, CONFIGMAP_READY)
  );
}

/**
 * The status the hand-written contenders write once the ConfigMap is as desired: the same
 * conditions kubeloop's condition set produces, with apimachinery's SetStatusCondition rule that
 * `lastTransitionTime` moves only when `status` moves.
 */
export function readyStatus(w: WidgetLike, now = new Date()) {
  const generation = w.metadata.generation;
  const since = (type: string) => {
    const old = w.status?.conditions?.find((c) => c.type === type);
    const t = old?.status === "True" ? old.lastTransitionTime : undefined;
    return t ? new Date(t).toISOString().replace(/\.\d+Z$/, "Z") : now.toISOString().replace(/\.\d+Z$/, "Z");
  };
  const name = configMapName(w.metadata.name ?? "");
  return {
    observedGeneration: generation,
    conditions: [
      {
        type: CONFIGMAP_READY,
        status: "True",
        reason: "ConfigMapPublished",
        message: `ConfigMap ${name} holds the message`,
        observedGeneration: generation,
        lastTransitionTime: since(CONFIGMAP_READY),
      },
      {
        type: "Ready",
        status: "True",
        reason: "AllConditionsNormal",
        message: "",
        observedGeneration: generation,
        lastTransitionTime: since("Ready"),
      },
    ],
  };
}

/** True when a Widget is converged as the runner sees it: status current and its ConfigMap as desired. */
export function converged(
  w: WidgetLike,
  cm:
    | {
        data?: Record<string, string>;
        metadata: { ownerReferences?: { uid: string; controller?: boolean }[] };
      }
    | undefined,
): boolean {
  if (!cm || !statusCurrent(w) || !dataMatches(w, cm.data)) return false;
  return (cm.metadata.ownerReferences ?? []).some((r) => r.controller && r.uid === w.metadata.uid);
}
