import { writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ConfigMap, Deployment, Job, type Operator, Pod } from "kubeloop";
import { controller, type Reconciler } from "kubeloop/controller";
import {
  alertRules,
  controllerPermissions,
  declarationWarnings,
  declaredPermissions,
  grafanaDashboard,
  helmChart,
  metricsAuthRbac,
  metricsReaderRole,
  metricsServiceManifest,
  monitoringFiles,
  operatorManifests,
  type RbacOptions,
  rbacFor,
  userRoles,
} from "kubeloop/generate";
import type { Manager } from "kubeloop/manager";
import { toYaml } from "kubeloop/schema";
import { LoadTest } from "../../operators/loadtest/api.ts";
import { Widget } from "../schema.ts";

declare const image: string;
declare const manager: Manager;
declare const reconcileWidget: Reconciler<import("kubeloop").ObjectOf<typeof Widget>>;
declare const rbacOptions: RbacOptions;
declare const operator: Operator;

// #region alertRules
writeFileSync(
  "alerts.yaml",
  toYaml([alertRules({ name: "widgets", namespace: "widgets", job: "widgets-metrics" })]),
);
// #endregion

// #region helmChart
for (const [file, text] of helmChart({
  name: "widgets",
  namespace: "widgets",
  image,
  kinds: [Widget],
  permissions: controllerPermissions({ primary: Widget, owns: [Deployment] }),
})) {
  await writeFile(join("chart", file), text);
}
// #endregion

// #region grafanaDashboard
const dashboard = grafanaDashboard({ name: "widgets", namespace: "widgets", job: "widgets-metrics" });
writeFileSync("dashboard.json", JSON.stringify(dashboard, null, 2));
// #endregion

// #region operatorManifests
for (const [file, text] of operatorManifests({
  name: "widgets",
  namespace: "widgets",
  image,
  kinds: [Widget],
  permissions: controllerPermissions({ primary: Widget, owns: [Deployment] }),
})) {
  await writeFile(join("deploy", file), text);
}
// #endregion

// #region metricsServiceManifest
metricsServiceManifest({
  name: "widgets",
  namespace: "widgets-system",
  selector: { "app.kubernetes.io/name": "widgets" },
});
// #endregion

// #region metricsAuthRbac
metricsAuthRbac({ name: "widgets", serviceAccount: { name: "widgets", namespace: "widgets-system" } });
// #endregion

// #region metricsReaderRole
metricsReaderRole("widgets"); // kubectl create clusterrolebinding prometheus-widgets --clusterrole=widgets-metrics-reader --serviceaccount=monitoring:prometheus
// #endregion

// #region monitoringFiles
monitoringFiles(
  { name: "widgets", namespace: "widgets", job: "widgets-metrics" },
  { "app.kubernetes.io/name": "widgets" },
);
// #endregion

// #region declaredPermissions
const declared = controller(manager).for(Widget).owns(ConfigMap).reconcile(reconcileWidget);
rbacFor(declaredPermissions(declared, { leaderElection: { namespace: "widgets" } }), rbacOptions);
// #endregion

// #region controllerPermissions
controllerPermissions({
  primary: LoadTest,
  owns: [Job, ConfigMap],
  watches: [Pod],
  leaderElection: { namespace: "lt" },
});
// #endregion

// #region rbacFor
const { roles, bindings } = rbacFor(controllerPermissions({ primary: Widget, owns: [Deployment] }), {
  name: "widget-operator",
  serviceAccount: { name: "widget-operator", namespace: "widget-system" },
});
// #endregion

// #region userRoles
toYaml(userRoles("widgets", [Widget])); // widgets-widget-editor, widgets-widget-viewer
// #endregion

// #region declarationWarnings
for (const warning of await declarationWarnings(operator)) console.warn(`warning: ${warning}`);
// #endregion

console.log(roles, bindings);
