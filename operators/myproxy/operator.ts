/**
 * The myproxy operator: the MyProxy and ProxyRoute kinds, their two controllers, the ProxyRoute
 * admission webhook and the MyProxy conversion webhook (v1alpha1 ⇄ v1beta1). `kubeloop run operators/myproxy/operator.ts` runs it against the current
 * kubeconfig; `kubeloop generate` derives its CRDs, RBAC, Deployment and webhook manifests from
 * this declaration.
 */
import { defineOperator } from "kubeloop";
import { proxyRouteAdmission } from "./admission.ts";
import { MyProxy, ProxyRoute } from "./api.ts";
import { myProxyController } from "./controller.ts";
import { proxyRouteController } from "./route-controller.ts";
import { myProxyConversion } from "./versions.ts";

export default defineOperator({
  name: "myproxy",
  kinds: [MyProxy, ProxyRoute],
  webhooks: [proxyRouteAdmission, myProxyConversion],
  setup(manager) {
    myProxyController(manager);
    proxyRouteController(manager);
  },
});
