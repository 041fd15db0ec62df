import {
  Action,
  ConfigMap,
  type ConfigMapObject,
  defineKind,
  ensureChild,
  generationChanged,
  type ObjectOf,
  Secret,
  type SecretObject,
  z,
} from "kubeloop";
import {
  type ControllerHost,
  controller,
  type ReconcileContext,
  type Reconciler,
  StalledError,
} from "kubeloop/controller";
import type { Manager } from "kubeloop/manager";

const Widget = defineKind({
  group: "example.com",
  version: "v1",
  kind: "Widget",
  scope: "Namespaced",
  spec: z.object({ secretName: z.string() }),
});
type WidgetObject = ObjectOf<typeof Widget>;
declare const manager: Manager;
declare const ctx: ReconcileContext<WidgetObject>;
declare function desiredConfigMap(widget: WidgetObject): ConfigMapObject;
declare function widgetsUsing(secret: SecretObject): string[];

// #region Reconciler
const reconcileWidget: Reconciler<WidgetObject> = async (ctx) => {
  const widget = ctx.object;
  if (!widget) return; // deleted
  await ensureChild(ctx, widget, ConfigMap, desiredConfigMap(widget));
  return Action.requeueAfter(60_000);
};
// #endregion

// #region ControllerBuilder
controller(manager)
  .for(Widget, { predicates: [generationChanged] })
  .owns(ConfigMap)
  .watches(Secret, (secret) => widgetsUsing(secret))
  .withOptions({ concurrency: 4 })
  .reconcile(reconcileWidget);
// #endregion

// #region ControllerDeclaration
const declared = controller(manager).for(Widget).owns(ConfigMap).reconcile(reconcileWidget);
declared.owns.map((kind) => kind.type); // [ConfigMap]
// #endregion

// #region ControllerHost
export function setupWidgets(host: ControllerHost): void {
  host.cache.informer(Widget).addIndexer("by-secret", (w) => [w.spec.secretName]);
  controller(host).for(Widget).owns(ConfigMap).reconcile(reconcileWidget);
}
// #endregion

// #region ReconcileReporting
ctx.report.conditionTransitioned("Widget", "Ready", "True");
// #endregion

// #region StalledError
class QuotaPolicyError extends StalledError {
  constructor(limit: string) {
    super("KL_EXAMPLE_QUOTA_POLICY", "QuotaPolicy", `the spec asks for more than ${limit}; lower it`);
  }
}

// #endregion

export { QuotaPolicyError };
