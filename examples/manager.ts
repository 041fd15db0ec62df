import { ConfigMap, type ObjectOf } from "kubeloop";
import { controller, type Reconciler } from "kubeloop/controller";
import { Manager, runManager } from "kubeloop/manager";
import { Widget } from "./schema.ts";

declare const reconcileWidget: Reconciler<ObjectOf<typeof Widget>>;

// #region manager
const manager = await Manager.create({ name: "widgets", leaderElection: {} });
controller(manager).for(Widget).owns(ConfigMap).reconcile(reconcileWidget);
await runManager(manager);
// #endregion
