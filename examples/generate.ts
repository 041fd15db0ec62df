// #region generate
import { Deployment } from "kubeloop";
import { controllerPermissions, rbacFor } from "kubeloop/generate";

const { roles, bindings } = rbacFor(controllerPermissions({ primary: Deployment, owns: [] }), {
  name: "widget-operator",
  serviceAccount: { name: "widget-operator", namespace: "widget-system" },
});
// #endregion

console.log(roles, bindings);
