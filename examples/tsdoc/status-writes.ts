import { type ConfigMapObject, defineKind, type ObjectOf, z } from "kubeloop";
import type { ReconcileContext } from "kubeloop/controller";
import {
  type ConditionReport,
  defineConditionSet,
  recordTransitions,
  type StatusUpdate,
  updateStatus,
  writeStatus,
} from "kubeloop/status";

const GizmoConditions = defineConditionSet({
  summary: "Ready",
  dependents: { ConfigMapReady: "normal-true" },
});
const Gizmo = defineKind({
  group: "example.com",
  version: "v1",
  kind: "Gizmo",
  scope: "Namespaced",
  spec: z.object({ size: z.int() }),
  status: z.object({ replicas: z.int().optional() }),
  conditions: GizmoConditions,
});
type GizmoObject = ObjectOf<typeof Gizmo>;
declare const ctx: ReconcileContext<GizmoObject>;
declare const gizmo: GizmoObject;
declare const child: ConfigMapObject | undefined;
declare function configMapReport(gizmo: GizmoObject, child: ConfigMapObject | undefined): ConditionReport;
declare function observedReplicas(child: ConfigMapObject | undefined): number;

// #region writeStatus
const { result } = await writeStatus(ctx, Gizmo, gizmo, GizmoConditions, (draft, fresh) => {
  draft.set("ConfigMapReady", configMapReport(fresh, child));
  return { replicas: observedReplicas(child) };
});
// result: "updated" | "unchanged" | "gone"
// #endregion

{
  // #region updateStatus
  let update: StatusUpdate | undefined;
  const result = await updateStatus(
    ctx.client,
    Gizmo,
    gizmo,
    (fresh) => {
      const draft = GizmoConditions.begin(fresh);
      draft.set("ConfigMapReady", configMapReport(fresh, child));
      update = draft.finish();
      return { replicas: observedReplicas(child), ...update.status };
    },
    { fieldManager: "gizmos" },
  );
  if (result === "updated" && update) recordTransitions(ctx, gizmo, update.transitions, GizmoConditions);
  // #endregion
}

console.log(result);
