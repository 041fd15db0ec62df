/**
 * The operator: its name, the kinds it serves, its webhooks and its controllers. `npm start` runs
 * it against the current kubeconfig; `npm run generate` derives its CRDs, RBAC, Deployment and
 * webhook configurations from it.
 */
import { ConfigMap, controller, defineOperator } from "kubeloop";
import { __KIND__ } from "./api.ts";
import { reconcile__KIND__ } from "./controller.ts";
import { validate__KIND__ } from "./webhook.ts";

export default defineOperator({
  name: "__NAME__",
  kinds: [__KIND__],
  webhooks: [validate__KIND__],
  setup(manager) {
    controller(manager).for(__KIND__).owns(ConfigMap).reconcile(reconcile__KIND__);
  },
});
