import { defineKind, type ObjectOf, z } from "kubeloop";
import { defineConditionSet, kstatus, type StatusContext, writeStatus } from "kubeloop/status";

const Kind = defineKind({
  group: "example.com",
  version: "v1",
  kind: "Rollout",
  scope: "Namespaced",
  spec: z.object({ replicas: z.int() }),
});
declare const ctx: StatusContext;
declare const obj: ObjectOf<typeof Kind>;

// #region status
const Ready = defineConditionSet({
  summary: "Ready",
  dependents: { Available: "normal-true", Degraded: "normal-false" },
});
// in the reconciler: only writes when something changed; transitions become events, not status
const { status } = await writeStatus(ctx, Kind, obj, Ready, (draft) => {
  draft.set("Available", { status: "True", reason: "MinimumReplicasAvailable", message: "3/3 ready" });
  draft.set("Degraded", { status: "False", reason: "AllReplicasHealthy" });
  return {}; // the kind's other status fields
});
kstatus({ ...obj, status }).status; // "Current": Ready=True, no Reconciling
// #endregion
