import {
  Action,
  Deployment,
  type DeploymentObject,
  defineKind,
  ensureChild,
  type KubeObject,
  type ObjectOf,
  z,
} from "kubeloop";
import type { Clock } from "kubeloop/clock";
import type { ReconcileContext } from "kubeloop/controller";
import {
  type ComputeStatus,
  type Condition,
  childFailure,
  childRefusal,
  defineConditionSet,
  isTrue,
  kstatus,
  parseTransitionNote,
  recordTransitions,
  type StatusDraft,
  type StatusUpdate,
  setCondition,
  type TransitionEventOptions,
  transitionEvents,
  updateStatus,
} from "kubeloop/status";

const App = defineKind({
  group: "example.com",
  version: "v1",
  kind: "App",
  scope: "Namespaced",
  spec: z.object({ replicas: z.int() }),
  status: z.object({}),
});
type AppObject = ObjectOf<typeof App>;
declare const app: AppObject;
declare const clock: Clock;
declare const ctx: ReconcileContext<AppObject>;
declare const update: StatusUpdate<"Running" | "Pending">;
declare const compute: ComputeStatus<AppObject>;
declare const deployment: DeploymentObject | undefined;
declare const draft: StatusDraft<"Available", never>;
declare const obj: KubeObject;
declare const log: { warn(fields: object, message: string): void };

// #region defineConditionSet
const AppConditions = defineConditionSet({
  summary: "Ready",
  dependents: { ConfigValid: "normal-true", Available: "normal-true", Degraded: "normal-false" },
  phase: (conditions) => (isTrue(conditions, "Ready") ? "Running" : "Pending"),
});

// in the reconciler
const status = AppConditions.begin(app, clock);
if (app.spec.replicas < 1) {
  status.set("ConfigValid", {
    status: "False",
    reason: "InvalidReplicas",
    message: "spec.replicas must be >= 1",
  });
  status.stalled("InvalidSpec", "fix spec.replicas to continue");
} else {
  status.set("ConfigValid", { status: "True", reason: "Valid" });
  status.set("Available", { status: "True", reason: "MinimumReplicasAvailable", message: "3/3 ready" });
  status.set("Degraded", { status: "False", reason: "AllReplicasHealthy" });
}
const next = status.finish(); // next.status to write, next.transitions for events and metrics
// writeStatus(ctx, App, app, AppConditions, (draft) => ...) does this from a fresh read, writes only
// on change and records the transitions it wrote
// #endregion

// #region childFailure
const failure = deployment && childFailure(deployment);
if (failure) draft.set("Available", { status: "False", ...failure });
// Available=False FailedCreate: "Deployment web: pods "web-5d9f7c8b9-x2x7q" is forbidden: exceeded quota: ..."
// #endregion

export async function reconcileApp(
  proxy: KubeObject,
  desiredDeployment: (owner: KubeObject) => DeploymentObject,
) {
  // #region childRefusal
  try {
    await ensureChild(ctx, proxy, Deployment, desiredDeployment(proxy));
  } catch (err) {
    const refused = childRefusal(err);
    if (!refused) throw err;
    draft.set("Available", { status: "False", ...refused }); // QuotaExceeded: deployments.apps "web" is forbidden: exceeded quota: ...
    return Action.requeueAfter(30_000);
  }
  // #endregion
}

// #region setCondition
const conditions: Condition[] = [];
setCondition(conditions, { type: "Ready", status: "True", reason: "AllGood" }); // true
setCondition(conditions, { type: "Ready", status: "True", reason: "AllGood" }); // false
// #endregion

{
  // #region kstatus
  const { status, message } = kstatus(obj);
  if (status === "Failed") log.warn({ message }, "stuck");
  // #endregion
}

// #region TransitionEventOptions.events
const options: TransitionEventOptions = {
  events: (e) => (e.condition === "Ready" ? e : undefined), // the summary's transitions only
};
// #endregion

// #region transitionEvents
transitionEvents(AppConditions, update.transitions);
// [{ condition: "Ready", type: "Normal", reason: "AllConditionsNormal",
//    note: "Ready: Unknown → True (AllConditionsNormal)" }]
// #endregion

// #region recordTransitions
if ((await updateStatus(ctx.client, App, app, compute)) === "updated")
  recordTransitions(ctx, app, update.transitions, AppConditions);
// #endregion

// #region parseTransitionNote
parseTransitionNote("Ready: Unknown → True (AllConditionsNormal)");
// { condition: "Ready", from: "Unknown", to: "True", reason: "AllConditionsNormal" }
// #endregion

console.log(next, options);
