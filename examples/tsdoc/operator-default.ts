import { ConfigMap, controller, defineOperator } from "kubeloop";
import type { Reconciler } from "kubeloop/controller";
import { Widget } from "../schema.ts";

declare const reconcileWidget: Reconciler<import("kubeloop").ObjectOf<typeof Widget>>;

// #region defineOperator
export default defineOperator({
  name: "widgets",
  kinds: [Widget],
  setup: (manager) => void controller(manager).for(Widget).owns(ConfigMap).reconcile(reconcileWidget),
});
// #endregion
