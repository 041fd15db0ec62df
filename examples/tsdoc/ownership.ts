import {
  ConfigMap,
  type ConfigMapObject,
  Deployment,
  type DeploymentObject,
  type JobObject,
  type KubeObject,
  type ObjectOf,
  setControllerReference,
} from "kubeloop";
import { CronJob, type CronJobObject } from "kubeloop/api";
import { type ControllerHost, controller, type ReconcileContext, type Reconciler } from "kubeloop/controller";
import {
  appliedFrom,
  ChildConflictError,
  type CoWriter,
  defaultCoWriters,
  type ExclusiveOptions,
  ensureChild,
  metadataMatches,
} from "kubeloop/ownership";
import type { StatusDraft } from "kubeloop/status";
// takeOver is internal to ownership (ensureChild's `exclusive` option uses it): no door exports it.
import { takeOver } from "../../src/ownership/exclusive.ts";
import { Widget } from "../schema.ts";

type WidgetObject = ObjectOf<typeof Widget>;
declare const host: ControllerHost;
declare const ctx: ReconcileContext<WidgetObject>;
declare const reconcileWidget: Reconciler<WidgetObject>;
declare const proxy: KubeObject;
declare const widget: WidgetObject;
declare const backup: KubeObject;
declare const app: KubeObject;
declare const owner: KubeObject;
declare const child: KubeObject;
declare const live: DeploymentObject;
declare const desired: DeploymentObject;
declare const draft: StatusDraft<"Ready", never>;
declare function desiredConfigMap(owner: KubeObject): ConfigMapObject;
declare function desiredCronJob(owner: KubeObject): CronJobObject;
declare function configMapIn(namespace: string): ConfigMapObject;
declare function reportConflict(
  ctx: ReconcileContext<WidgetObject>,
  owner: KubeObject,
  message: string,
): undefined;

// #region OwnedKind
controller(host)
  .for(Widget)
  .owns(ConfigMap, { scope: { namespace: "apps" } })
  .reconcile(reconcileWidget);
// in reconcileWidget: ctx.owned is [{ type: ConfigMap, scope: { namespace: "apps" } }]
// #endregion

{
  // #region appliedFrom
  // Repairs drift of the replicas and metadata only; any change of the desired object is applied.
  const matches = (want: DeploymentObject, have: DeploymentObject) =>
    appliedFrom(want, have) && metadataMatches(want, have) && have.spec?.replicas === want.spec?.replicas;
  // #endregion
  console.log(matches);
}

{
  // #region metadataMatches
  const matches = (want: JobObject, have: JobObject) =>
    metadataMatches(want, have) && have.spec?.parallelism === want.spec?.parallelism;
  // #endregion
  console.log(matches);
}

export async function reconcileProxy() {
  // #region ensureChild
  try {
    await ensureChild(ctx, proxy, ConfigMap, desiredConfigMap(proxy));
  } catch (err) {
    if (err instanceof ChildConflictError) return reportConflict(ctx, proxy, err.message);
    throw err;
  }
  // #endregion
}

// #region ChildConflictError
try {
  await ensureChild(ctx, proxy, ConfigMap, desiredConfigMap(proxy));
} catch (err) {
  if (!(err instanceof ChildConflictError)) throw err;
  draft.stalled("ChildConflict", err.message);
}
// #endregion

// #region AlreadyOwnedError
setControllerReference(owner, child); // throws AlreadyOwnedError when another object controls child
// #endregion

// #region ChildOutOfScopeError
controller(host)
  .for(Widget)
  .owns(ConfigMap, { scope: { namespace: "apps" } });
await ensureChild(ctx, widget, ConfigMap, configMapIn("other")); // throws ChildOutOfScopeError
// #endregion

// #region ChildReplacedError
// Thrown from ensureChild: let it propagate, and the controller retries with backoff.
await ensureChild(ctx, proxy, ConfigMap, desiredConfigMap(proxy));
// #endregion

// #region InvalidChildError
await ensureChild(ctx, backup, CronJob, desiredCronJob(backup));
// throws InvalidChildError: "CronJob ns/nightly was refused as invalid: spec.schedule: Invalid value: ..."
// #endregion

// #region CoWriter
const meshInjector: CoWriter = { manager: "istio-sidecar-injector" };
const anyAnnotation: CoWriter = { path: ["spec", "template", "metadata", "annotations"] };
// #endregion

// #region defaultCoWriters
await ensureChild(ctx, app, Deployment, desired, {
  exclusive: { allow: [...defaultCoWriters, { manager: "istio-sidecar-injector" }] },
});
// #endregion

// #region ExclusiveOptions
const exclusive: ExclusiveOptions = { allow: [...defaultCoWriters, { manager: "vpa-updater" }] };
await ensureChild(ctx, app, Deployment, desired, { exclusive });
// #endregion

// #region takeOver
takeOver(live, desired, "my-operator", defaultCoWriters, "2026-11-27T19:18:44Z").removed;
// [{ pointer: ["spec", "template", "spec", "hostNetwork"], writer: { manager: "kubectl-patch", ... } }]
// #endregion

console.log(meshInjector, anyAnnotation);
