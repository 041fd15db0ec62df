/**
 * The myproxy operator: the MyProxy and ProxyRoute kinds and their two controllers. `kubeloop run
 * operators/myproxy/operator.ts` runs it against the current kubeconfig; `kubeloop generate` derives
 * its CRDs, RBAC and Deployment from this declaration.
 */
import { defineOperator } from "kubeloop";
import { MyProxy, ProxyRoute } from "./api.ts";
import { myProxyController } from "./controller.ts";
import { proxyRouteController } from "./route-controller.ts";

export default defineOperator({
  name: "myproxy",
  kinds: [MyProxy, ProxyRoute],
  setup(manager) {
    myProxyController(manager);
    proxyRouteController(manager);
  },
});
