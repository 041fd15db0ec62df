import { ConfigMap, controller, defineOperator, type ObjectOf, type Reconciler } from "kubeloop";
import { Widget } from "./schema.ts";

declare const reconcileWidget: Reconciler<ObjectOf<typeof Widget>>;

// #region operator
// src/operator.ts of an operator project
export default defineOperator({
  name: "widgets",
  kinds: [Widget],
  setup: (manager) => void controller(manager).for(Widget).owns(ConfigMap).reconcile(reconcileWidget),
});
// #endregion
