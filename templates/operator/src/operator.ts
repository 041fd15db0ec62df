/**
 * The operator: its name, the kinds it serves, its webhooks and its controllers. `npm start` runs
 * it against the current kubeconfig; `npm run generate` derives its CRDs, RBAC, Deployment and
 * webhook configurations from it.
 */
import { ConfigMap, controller, defineOperator } from "kubeloop";
import { __KIND__ } from "./api.ts";
import { __KIND__Of, reconcile__KIND__ } from "./controller.ts";
import { validate__KIND__ } from "./webhook.ts";

export default defineOperator({
  name: "__NAME__",
  kinds: [__KIND__],
  webhooks: [validate__KIND__],
  setup(manager) {
    controller(manager)
      .for(__KIND__)
      .owns(ConfigMap)
      // Someone else's ConfigMap of a __KIND__'s name blocks it (ConfigMapTaken): wake it when that one goes.
      .watches(ConfigMap, __KIND__Of)
      .reconcile(reconcile__KIND__);
  },
});
